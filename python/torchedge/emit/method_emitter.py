"""One edge-dialect ExportedProgram -> one ExecutionPlan.

Graph walk, in node order:
  placeholder      user input -> a planned Tensor value (or a fresh Int/Double/...
                   for non-tensor inputs), listed in plan.inputs; parameter,
                   buffer or lifted constant -> a constant Tensor value whose
                   bytes go to the shared ConstantTable
  call_function    ATen op -> KernelCall of its out-variant; arguments in the
                   out schema's order, every argument (defaults filled in),
                   out tensors last, then the return slot(s) (see _returns);
                   one fresh planned Tensor per result
  getitem          the matching result value of the multi-output call; no code
  sym_size, +,*..  KernelCall writing a fresh Int value (dynamic shapes)
  buffer (mutated) a planned Tensor holding state across executions: its
                   initial value goes to the mutable-data table
                   (data_buffer_idx), and it is marked for planning with a
                   provisional allocation_info (see torchedge.memory)
  cond             torch.cond, inlined as upstream does: JumpFalseCall(pred)
                   over the true branch, whose results are MoveCall'ed into the
                   cond's result values, JumpFalseCall(False) over the false
                   branch, which moves its results there too (control_flow.py)
  output           plan.outputs; results that are plan inputs, constants or
                   already listed get an `aten::clone.out` into a fresh tensor,
                   so every output is a distinct planned tensor; then one
                   `aten::copy_` per mutated buffer writes its new value
With dynamic inputs, guard instructions come first (input_guards.py).
Memory offsets are assigned afterwards by torchedge.memory.plan_memory.
"""

from __future__ import annotations

import operator
import warnings
from typing import Any, Optional, Union

import torch

from torchedge.backends.lowered_module import LoweredModule
import torch.fx
from torch._ops import OpOverload
from torch.export import ExportedProgram
from torch.export.graph_signature import InputKind, InputSpec, OutputKind
from torch.utils._pytree import treespec_dumps

from torchedge.aten.arguments import bind_arguments, default_value
from torchedge.aten.out_variants import is_out_argument, kernel_name, out_arguments, out_variant
from torchedge.aten.symbolic import NEGATED_COMPARISONS, SIZE_OPERATORS, SYMBOLIC_OPERATORS
from torchedge.emit.argument_encoding import encode_argument
from torchedge.emit.constant_table import ConstantTable
from torchedge.emit.external_data import ExternalData, external_value
from torchedge.emit.control_flow import COND, emit_cond
from torchedge.emit.input_guards import emit_input_guards
from torchedge.emit.state_in_place import in_place_results, written_back
from torchedge.emit.tensor_values import dim_order, tensor_bytes, tensor_value, upper_bound
from torchedge.emit.value_table import ValueTable
from torchedge.emit.view_aliases import (
    ET_VIEW,
    VIEW_COPY,
    can_alias,
    has_control_flow,
    static_shape,
)
from torchedge.serialize import schema as s
from torchedge.source_location import stack_frames

NodeValue = Union[int, list[int]]
CLONE_OUT = ("aten::clone", "out")
# ET12 names a "default" overload with an empty string.
COPY_INPLACE = ("aten::copy_", "")
PROVISIONAL_ALLOCATION = s.AllocationDetails.at(1, 0)  # plan_memory sets the real offset


class EmitError(RuntimeError):
    """A graph the emitter cannot translate (the verifier should have said so)."""


class MethodEmitter:
    """Builds the ExecutionPlan of one method; see the module docstring."""

    def __init__(
        self,
        name: str,
        program: ExportedProgram,
        constants: ConstantTable,
        include_stacktrace: bool = True,
        mutable_data: Optional[ConstantTable] = None,
        input_guards: bool = True,
        delegate_blobs: Optional[list[bytes]] = None,
        alias_views: bool = True,
        external_data: Optional[ExternalData] = None,
    ) -> None:
        self.name = name
        # Constants selected for the .ptd (emit/external_data.py); None: all stay in.
        self.external_data = external_data
        self.program = program
        self.constants = constants
        self.mutable_data = mutable_data if mutable_data is not None else ConstantTable()
        self.include_stacktrace = include_stacktrace
        self.input_guards = input_guards
        # view_copy (and squeeze / unsqueeze / no-op expand copies) -> et_view
        # aliases (emit/view_aliases.py); never with control flow.
        self.alias_views = alias_views and not has_control_flow(program.graph)
        self._mutated = {
            spec.target for spec in program.graph_signature.output_specs
            if spec.kind == OutputKind.BUFFER_MUTATION
        }
        self._buffer_values: dict[str, int] = {}  # mutated buffer target -> its value
        self._buffer_nodes: dict[torch.fx.Node, str] = {}  # its placeholder -> target
        self._write_backs = written_back(program)  # target -> node written back to it
        self._submodules: dict[torch.fx.Node, torch.fx.GraphModule] = {}
        self.values = ValueTable()
        self._node_values: dict[torch.fx.Node, NodeValue] = {}
        self._written: set[int] = set()  # values some instruction writes
        self._operators: list[s.Operator] = []
        self._operator_index: dict[tuple[str, str], int] = {}
        self._instructions: list[s.InstructionArguments] = []
        self._frames: list[s.FrameList] = []
        # The FX node behind each instruction (None for emitter-made ones):
        # the ETRecord's debug-handle map (torchedge.devtools.etrecord).
        self.instruction_nodes: list[Optional[torch.fx.Node]] = []
        # Program-wide list of delegate blobs; BackendDelegate.processed.index
        # is a position in it until the program emitter assigns segments.
        self.delegate_blobs = delegate_blobs if delegate_blobs is not None else []
        self._delegates: list[s.BackendDelegate] = []

    # -- NodeValues protocol (argument_encoding) ---------------------------------

    def value_of(self, node: torch.fx.Node) -> int:
        value = self._node_values.get(node)
        if value is None:
            raise EmitError(f"node '{node.name}' is used before it is defined")
        if isinstance(value, list):
            raise EmitError(f"node '{node.name}' has several results; use getitem")
        return value

    # -- entry point -------------------------------------------------------------

    def emit(self) -> s.ExecutionPlan:
        specs = {
            spec.arg.name: spec for spec in self.program.graph_signature.input_specs
            if hasattr(spec.arg, "name")
        }
        inputs: list[int] = []
        outputs: list[int] = []
        user_inputs: list[torch.fx.Node] = []
        guarded = not self.input_guards
        for node in self.program.graph.nodes:
            if node.op != "placeholder" and not guarded:
                emit_input_guards(self, user_inputs)
                guarded = True
            if node.op == "placeholder":
                spec = specs.get(node.name)
                if spec is None or spec.kind == InputKind.USER_INPUT:
                    inputs.append(self._user_input(node))
                    user_inputs.append(node)
                elif spec.kind == InputKind.BUFFER and spec.target in self._mutated:
                    self._node_values[node] = self._mutable_buffer(spec)
                    self._buffer_nodes[node] = spec.target
                else:
                    self._node_values[node] = self._constant(node, spec)
            elif node.op == "output":
                outputs = self._outputs(node)
            else:
                self._emit_node(node)
        chain = s.Chain(
            inputs=list(inputs),
            outputs=list(outputs),
            instructions=self._instructions,
            stacktrace=self._frames if self.include_stacktrace else None,
        )
        return s.ExecutionPlan(
            name=self.name,
            container_meta_type=self._container_metadata(),
            values=self.values.values,
            inputs=inputs,
            outputs=outputs,
            chains=[chain],
            operators=self._operators,
            delegates=self._delegates,
            non_const_buffer_sizes=[0, 0],
        )

    # -- placeholders ------------------------------------------------------------

    def _user_input(self, node: torch.fx.Node) -> int:
        value = node.meta.get("val")
        if isinstance(value, torch.Tensor):
            index = self.values.add(tensor_value(value))
        else:
            index = self._fresh_literal(value)
        self._node_values[node] = index
        return index

    def _fresh_literal(self, value: Any) -> int:
        """A value of its own (never shared): plan inputs and outputs are set at run time."""
        if value is None:
            return self.values.add(s.Null())
        if isinstance(value, torch.SymInt):
            return self.values.add(s.Int(upper_bound(value)))
        if isinstance(value, bool):
            return self.values.add(s.Bool(value))
        if isinstance(value, int):
            return self.values.add(s.Int(value))
        if isinstance(value, float):
            return self.values.add(s.Double(value))
        if isinstance(value, str):
            return self.values.add(s.String(value))
        raise EmitError(f"cannot emit input or output value {value!r}")

    def _mutable_buffer(self, spec: InputSpec) -> int:
        tensor = self._constant_tensor(spec)
        if not isinstance(tensor, torch.Tensor):
            raise EmitError(f"buffer '{spec.target}' is a {type(tensor).__name__}, not a tensor")
        # An all-zero initial value (an LLM's KV cache: ~90 MB) is not stored:
        # the runtime zero-fills a mutable buffer that has no initial data.
        zero = tensor.numel() == 0 or not bool(tensor.detach().ne(0).any())
        data_buffer_idx = 0 if zero else self.mutable_data.add(tensor_bytes(tensor, dim_order(tensor)))
        value = tensor_value(tensor, data_buffer_idx)
        value.allocation_info = PROVISIONAL_ALLOCATION
        value.extra_tensor_info = s.ExtraTensorInfo(fully_qualified_name=spec.target)
        index = self.values.add(value)
        self._buffer_values[spec.target] = index
        return index

    def _constant(self, node: torch.fx.Node, spec: InputSpec) -> int:
        tensor = self._constant_tensor(spec)
        if not isinstance(tensor, torch.Tensor):
            raise EmitError(f"constant '{spec.target}' is a {type(tensor).__name__}, not a tensor")
        data = tensor_bytes(tensor, dim_order(tensor))
        if self.external_data is not None and self.external_data.wants(spec.target):
            value = tensor_value(tensor)
            key = self.external_data.add(spec.target, value, data)
            return self.values.add(external_value(value, key))
        return self.values.add(tensor_value(tensor, self.constants.add(data)))

    def _constant_tensor(self, spec: InputSpec) -> Any:
        program, target = self.program, spec.target
        if spec.kind == InputKind.PARAMETER:
            return program.state_dict[target]
        if spec.kind == InputKind.BUFFER:
            if target in program.state_dict:
                return program.state_dict[target]
            return program.constants[target]
        if spec.kind == InputKind.CONSTANT_TENSOR:
            return program.constants[target]
        raise EmitError(f"input '{spec.arg.name}' of kind {spec.kind.name} cannot be emitted")

    # -- nodes -------------------------------------------------------------------

    def _emit_node(self, node: torch.fx.Node) -> None:
        if node.op == "call_function":
            self._call_function(node)
        elif node.op == "get_attr":
            # Branch graphs name their own (nested) branches: resolve the
            # attribute on the module that owns this node's graph.
            owner = node.graph.owning_module or self.program.graph_module
            module = getattr(owner, node.target, None)
            if not isinstance(module, torch.fx.GraphModule):
                raise EmitError(f"get_attr '{node.target}' is not a graph module (only torch.cond "
                                "branches are supported)")
            self._submodules[node] = module
        else:
            raise EmitError(f"cannot emit '{node.op}' node '{node.name}'")

    def submodule(self, node: Any) -> torch.fx.GraphModule:
        """The branch graph a cond argument names (a get_attr node)."""
        if isinstance(node, torch.fx.Node) and node in self._submodules:
            return self._submodules[node]
        raise EmitError(f"expected a get_attr node naming a graph module, got {node!r}")

    def emit_subgraph(self, module: torch.fx.GraphModule, inputs: list[int]) -> list[int]:
        """Emits the nodes of a branch graph inline, its placeholders bound to
        the values `inputs`; returns the values of its outputs."""
        placeholders = [n for n in module.graph.nodes if n.op == "placeholder"]
        if len(placeholders) != len(inputs):
            raise EmitError(f"branch takes {len(placeholders)} inputs, got {len(inputs)}")
        outputs: list[int] = []
        for node in module.graph.nodes:
            if node.op == "placeholder":
                self._node_values[node] = inputs[placeholders.index(node)]
            elif node.op == "output":
                outputs = [self.value_of(v) for v in node.args[0]]
            else:
                self._emit_node(node)
        return outputs

    # -- calls -------------------------------------------------------------------

    def _call_function(self, node: torch.fx.Node) -> None:
        target = node.target
        if target is operator.getitem:
            source, index = node.args
            results = self._node_values[source]
            if not isinstance(results, list):
                raise EmitError(f"getitem on single-result node '{source.name}'")
            self._node_values[node] = results[index]
        elif target in SIZE_OPERATORS:
            args = [self.value_of(node.args[0])] + [self._scalar_arg(a) for a in node.args[1:]]
            self._kernel_call(SIZE_OPERATORS[target], args + [self._results(node)], node)
        elif target in SYMBOLIC_OPERATORS:
            args = [self._scalar_arg(a) for a in node.args]
            self._kernel_call(SYMBOLIC_OPERATORS[target], args + [self._results(node)], node)
        elif target in NEGATED_COMPARISONS:
            args = [self._scalar_arg(a) for a in node.args]
            holds = self.values.add(s.Bool(False))
            self._kernel_call(SYMBOLIC_OPERATORS[NEGATED_COMPARISONS[target]], args + [holds], node)
            self._kernel_call(SYMBOLIC_OPERATORS[torch.sym_not], [holds, self._results(node)], node)
        elif target is COND:
            emit_cond(self, node)
        elif isinstance(target, LoweredModule):
            self._delegate_call(node, target)
        elif isinstance(target, OpOverload):
            self._aten_call(node, target)
        else:
            raise EmitError(f"cannot emit call to {target!r} (node '{node.name}')")

    def _delegate_call(self, node: torch.fx.Node, lowered: LoweredModule) -> None:
        """DelegateCall(delegate, [inputs..., outputs...]); the blob becomes a segment."""
        inputs = [self.value_of(a) for a in node.args]
        results = self._results(node)
        outputs = results if isinstance(results, list) else [results]
        self.delegate_blobs.append(lowered.processed)
        self._delegates.append(s.BackendDelegate(
            id=lowered.backend_id,
            processed=s.BackendDelegateDataReference(s.DataLocation.SEGMENT,
                                                     len(self.delegate_blobs) - 1),
            compile_specs=[s.CompileSpec(c.key, c.value) for c in lowered.compile_specs],
        ))
        self.append(s.DelegateCall(len(self._delegates) - 1, inputs + outputs), node)

    def _scalar_arg(self, value: Any) -> int:
        if isinstance(value, torch.fx.Node):
            return self.value_of(value)
        if isinstance(value, bool):
            return self.values.bool(value)
        if isinstance(value, int):
            return self.values.int(value)
        if isinstance(value, float):
            return self.values.double(value)
        raise EmitError(f"cannot emit symbolic operand {value!r}")

    def _aten_call(self, node: torch.fx.Node, op: OpOverload) -> None:
        if self.alias_views and self._view_alias(node, op):
            return
        out_op = out_variant(op)
        if out_op is None:
            raise EmitError(f"{op} has no out variant (node '{node.name}')")
        bound = bind_arguments(op._schema, node.args, node.kwargs)
        args = []
        for argument in out_op._schema.arguments:
            if is_out_argument(argument):
                continue
            try:
                value = bound[argument.name] if argument.name in bound else default_value(argument)
                args.append(encode_argument(self, argument, value))
            except TypeError as error:
                raise EmitError(f"{op} (node '{node.name}'): {error}") from error
        # Caches an op updates in place take their buffer's value (state_in_place.py).
        in_place = in_place_results(node, op, self._buffer_nodes, self._write_backs)
        results = self._results(node, {i: self._buffer_values[t] for i, t in in_place.items()})
        out_values = self._out_values(out_op, results)
        args.extend(out_values)
        args.extend(self._returns(out_op, out_values))
        self._kernel_call(kernel_name(out_op), args, node)

    def _view_alias(self, node: torch.fx.Node, op: OpOverload) -> bool:
        """Emits `node` as et_view(self, size, out) when it may alias; see view_aliases."""
        source = node.args[0]
        if not isinstance(source, torch.fx.Node) or source not in self._node_values:
            return False
        source_value = self._node_values[source]
        if isinstance(source_value, list):
            return False
        if not can_alias(node, source_value in self._written,
                         source_value in self._buffer_values.values()):
            return False
        size_argument = next(a for a in VIEW_COPY._schema.arguments if a.name == "size")
        if node.target is VIEW_COPY:
            bound = bind_arguments(op._schema, node.args, node.kwargs)
            size = encode_argument(self, size_argument, bound["size"])
        else:  # a squeeze / unsqueeze / non-broadcasting expand: its static result shape
            size = encode_argument(self, size_argument, static_shape(node))
        out = self._results(node)
        self._kernel_call(ET_VIEW, [source_value, size, out], node)
        return True

    def _out_values(self, out_op: OpOverload, results: NodeValue) -> list[int]:
        """One value per out argument: a Tensor, or a TensorList for `Tensor(a!)[] out`."""
        outs = out_arguments(out_op._schema)
        if len(outs) == 1 and str(outs[0].real_type) == "List[Tensor]":
            return [self.values.tensor_list(results if isinstance(results, list) else [results])]
        results = results if isinstance(results, list) else [results]
        if len(results) != len(outs):
            raise EmitError(f"{out_op}: {len(results)} results but {len(outs)} out arguments")
        return results

    def _returns(self, out_op: OpOverload, out_values: list[int]) -> list[int]:
        """The ET12 return slots after the arguments: an out-variant returns its
        out arguments, so one return repeats the out value, several returns are
        one TensorList of them. A `Tensor(a!)[] out` variant declared `-> ()`
        (split_with_sizes_copy.out) still gets one slot, a second TensorList
        of the same tensors: the node's result, as upstream emits it (its
        runtime's unboxing expects the slot)."""
        count = len(out_op._schema.returns)
        if count == 0:
            last = self.values.values[out_values[-1]] if out_values else None
            if isinstance(last, s.TensorList):
                return [self.values.add(s.TensorList(list(last.items)))]
            return []
        if count == 1:
            return out_values[-1:]
        return [self.values.tensor_list(out_values[-count:])]

    def _results(self, node: torch.fx.Node, existing: Optional[dict[int, int]] = None) -> NodeValue:
        """Fresh values for what `node` computes, recorded as its value(s);
        result i of a multi-result node takes value existing[i] instead."""
        value = node.meta.get("val")
        existing = existing or {}
        if isinstance(value, (list, tuple)):
            result: NodeValue = [existing[i] if i in existing else self._result(v, node)
                                 for i, v in enumerate(value)]
            self._written.update(result)
        else:
            result = self._result(value, node)
            self._written.add(result)
        self._node_values[node] = result
        return result

    def _result(self, value: Any, node: torch.fx.Node) -> int:
        if isinstance(value, torch.Tensor):
            return self.values.add(tensor_value(value))
        if isinstance(value, (torch.SymBool, bool)):
            return self.values.add(s.Bool(bool(value) if isinstance(value, bool) else False))
        if isinstance(value, (torch.SymInt, int)):
            return self.values.add(s.Int(upper_bound(value)))
        if isinstance(value, (torch.SymFloat, float)):
            return self.values.add(s.Double(float(value) if isinstance(value, float) else 0.0))
        raise EmitError(f"node '{node.name}' computes {value!r}, which has no runtime value")

    def results(self, node: torch.fx.Node) -> NodeValue:
        """Fresh values for what `node` computes (control-flow emitters)."""
        return self._results(node)

    def kernel_call(self, kernel: tuple[str, str], args: list[int], node: Optional[torch.fx.Node]) -> None:
        """Appends a KernelCall of operator `kernel` ("aten::copy_", "")."""
        self._kernel_call(kernel, args, node)

    def append(self, instruction: s.InstructionArguments, node: Optional[torch.fx.Node]) -> int:
        """Appends a non-kernel instruction; returns its position."""
        self._instructions.append(instruction)
        self._frames.append(self._frame_list(node))
        self.instruction_nodes.append(node)
        return len(self._instructions) - 1

    def is_written(self, index: int) -> bool:
        """Whether some instruction of this method writes value `index`."""
        return index in self._written

    def clone(self, source: int, node: torch.fx.Node) -> int:
        """A fresh tensor that an `aten::clone.out` fills with value `source`."""
        return self._clone(source, node)

    @property
    def num_instructions(self) -> int:
        return len(self._instructions)

    def _kernel_call(self, kernel: tuple[str, str], args: list[int], node: Optional[torch.fx.Node]) -> None:
        op_index = self._operator_index.get(kernel)
        if op_index is None:
            op_index = self._operator_index[kernel] = len(self._operators)
            self._operators.append(s.Operator(*kernel))
        self.append(s.KernelCall(op_index, args), node)

    def _frame_list(self, node: Optional[torch.fx.Node]) -> s.FrameList:
        if node is None:
            return s.FrameList([])
        frames = stack_frames(node)
        user = [f for f in frames if not f.is_torch_internal] or frames[-1:]
        return s.FrameList([s.Frame(f.filename, f.lineno, f.function, f.code) for f in user])

    # -- outputs -----------------------------------------------------------------

    def _outputs(self, node: torch.fx.Node) -> list[int]:
        """User outputs first (copies read the old buffer values, if any),
        then the buffer write-backs, in the signature's order."""
        specs = self.program.graph_signature.output_specs
        returned = list(node.args[0])
        if len(specs) != len(returned):
            raise EmitError(f"the graph returns {len(returned)} values but the signature has {len(specs)}")
        outputs: list[int] = []
        for spec, value in zip(specs, returned):
            if spec.kind == OutputKind.BUFFER_MUTATION:
                continue
            if not isinstance(value, torch.fx.Node):
                outputs.append(self._fresh_literal(value))
                continue
            index = self.value_of(value)
            if index not in self._written or index in outputs:
                index = self._clone(index, value)
            outputs.append(index)
        for spec, value in zip(specs, returned):
            if spec.kind == OutputKind.BUFFER_MUTATION:
                self._write_buffer(spec.target, value)
        return outputs

    def _write_buffer(self, target: str, value: Any) -> None:
        buffer = self._buffer_values.get(target)
        if buffer is None or not isinstance(value, torch.fx.Node):
            raise EmitError(f"buffer '{target}' is mutated but is not an input of this method")
        source = self.value_of(value)
        if source == buffer:
            return  # the graph returns the buffer unchanged
        self._kernel_call(COPY_INPLACE, [buffer, source, self.values.bool(False), buffer], value)

    def _clone(self, source: int, node: torch.fx.Node) -> int:
        """Copies value `source` (a plan input, constant or repeated output)."""
        original = self.values.values[source]
        if not isinstance(original, s.Tensor):
            return self.values.add(type(original)(**vars(original)))
        copy = s.Tensor(
            scalar_type=original.scalar_type,
            sizes=list(original.sizes),
            dim_order=list(original.dim_order),
            shape_dynamism=original.shape_dynamism,
        )
        index = self.values.add(copy)
        self._written.add(index)
        self._kernel_call(CLONE_OUT, [source, self.values.null(), index, index], node)
        return index

    def _container_metadata(self) -> s.ContainerMetadata:
        call_spec = self.program.call_spec
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            inp = treespec_dumps(call_spec.in_spec) if call_spec.in_spec is not None else ""
            out = treespec_dumps(call_spec.out_spec) if call_spec.out_spec is not None else ""
        return s.ContainerMetadata(inp, out)
