"""The malformed-program corpus: each case breaks one rule and names the
error it must produce (code and a fragment of the message).

A case mutates a decoded base program (base_programs.py) and re-serializes
it, patches the serialized bytes, or keeps the program and feeds hostile
run-time inputs. `expect` is (code name, message fragment); the test loads
the bytes, loads every method and runs forward, and the first error must
match. Cases are generated per value, instruction and field, so one rule
is checked at every place it applies.
"""

from __future__ import annotations

import dataclasses
import struct
from typing import Callable, Optional

import torch

from torchedge.serialize import schema as s
from torchedge.serialize.pte_file import PteFile, serialize_pte

from base_programs import base, base_bytes


@dataclasses.dataclass
class Case:
    name: str
    base: str
    make: Callable[[], tuple[bytes, tuple]]
    code: str
    fragment: str


def _program_case(name: str, base_name: str, mutate: Callable[[PteFile], None], code: str,
                  fragment: str) -> Case:
    def make() -> tuple[bytes, tuple]:
        pte, inputs = base(base_name)
        mutate(pte)
        return serialize_pte(pte.program, pte.segments), inputs

    return Case(name, base_name, make, code, fragment)


def _plan(pte: PteFile) -> s.ExecutionPlan:
    return pte.program.execution_plan[0]


def _instructions(pte: PteFile) -> list:
    return _plan(pte).chains[0].instructions


# Value indices of conv_linear (see base_programs.ConvLinear): 0 conv weight
# (constant), 3 prepacked linear weight (constant), 4 input x, 5 input idx,
# 10 conv output (planned), 13 flatten view (no memory), 21 output.
CONV_LINEAR_TENSORS = {"conv_weight": 0, "packed_weight": 3, "input": 4, "index_input": 5,
                       "intermediate": 10, "view": 13, "output": 21}


def _tensor_cases() -> list[Case]:
    cases = []
    for where, index in CONV_LINEAR_TENSORS.items():
        def tensor(pte, index=index) -> s.Tensor:
            return _plan(pte).values[index]

        def negative_size(pte, t=tensor):
            t(pte).sizes[0] = -1

        def overflowing_sizes(pte, t=tensor):
            x = t(pte)
            x.sizes = [2**31 - 1] * 4
            x.dim_order = [0, 1, 2, 3]

        def too_many_dims(pte, t=tensor):
            x = t(pte)
            x.sizes = [1] * 17
            x.dim_order = list(range(17))

        def repeated_dim_order(pte, t=tensor):
            x = t(pte)
            x.dim_order = [0] * len(x.dim_order)
            if len(x.dim_order) == 1:
                x.dim_order = [1]

        def short_dim_order(pte, t=tensor):
            x = t(pte)
            x.dim_order = x.dim_order[:-1]

        def unknown_dtype(pte, t=tensor):
            t(pte).scalar_type = 99

        def unknown_dynamism(pte, t=tensor):
            t(pte).shape_dynamism = 9

        cases += [
            _program_case(f"{where}_negative_size", "conv_linear", negative_size, "InvalidProgram", "negative size -1"),
            _program_case(f"{where}_sizes_product_overflows", "conv_linear", overflowing_sizes,
                          "InvalidProgram", "size overflows"),
            _program_case(f"{where}_17_dims", "conv_linear", too_many_dims, "InvalidProgram", "exceeds the limit of 16"),
            _program_case(f"{where}_dim_order_not_a_permutation", "conv_linear", repeated_dim_order,
                          "InvalidProgram", "dim_order is not a permutation"),
            _program_case(f"{where}_dim_order_shorter_than_sizes", "conv_linear", short_dim_order,
                          "InvalidProgram", "entries for rank"),
            _program_case(f"{where}_unknown_dtype", "conv_linear", unknown_dtype, "InvalidProgram", "unsupported tensor dtype 99"),
            _program_case(f"{where}_unknown_shape_dynamism", "conv_linear", unknown_dynamism,
                          "InvalidProgram", "unknown shape dynamism"),
        ]
    return cases


def _constant_cases() -> list[Case]:
    cases = []
    for where in ("conv_weight", "packed_weight"):
        index = CONV_LINEAR_TENSORS[where]

        def buffer_index(pte, index=index, value=999):
            _plan(pte).values[index].data_buffer_idx = value

        def planned_constant(pte, index=index):
            _plan(pte).values[index].allocation_info = s.AllocationDetails(1, 0, 0)

        cases += [
            _program_case(f"{where}_data_index_past_the_constants", "conv_linear", buffer_index,
                          "InvalidProgram", "constant 999 out of range"),
            _program_case(f"{where}_both_constant_and_planned", "conv_linear", planned_constant,
                          "InvalidProgram", ""),
        ]

    def offset_past_segment(pte):
        pte.program.constant_segment.offsets[1] = 10**9

    def segment_index(pte):
        pte.program.constant_segment.segment_index = 7

    def short_segment(pte):
        pte.segments[0] = pte.segments[0][:100]

    cases += [
        _program_case("constant_offset_past_its_segment", "conv_linear", offset_past_segment,
                      "InvalidProgram", "runs past the"),
        _program_case("constant_segment_index_past_the_segments", "conv_linear", segment_index,
                      "InvalidProgram", "constant segment index 7 out of range"),
        _program_case("constant_segment_shorter_than_its_tensors", "conv_linear", short_segment,
                      "InvalidProgram", "runs past the 100-byte constant segment"),
    ]
    return cases


def _allocation_cases() -> list[Case]:
    cases = []
    for where in ("input", "intermediate", "output", "index_input"):
        index = CONV_LINEAR_TENSORS[where]

        def alloc(pte, index=index) -> s.AllocationDetails:
            return _plan(pte).values[index].allocation_info

        def memory_id(pte, a=alloc, value=5):
            a(pte).memory_id = value

        def memory_id_zero(pte, a=alloc):
            a(pte).memory_id = 0

        def offset_past_arena(pte, a=alloc):
            a(pte).memory_offset_low = 2**31

        def offset_high_bits(pte, a=alloc):
            a(pte).memory_offset_high = 1

        def end_past_arena(pte, a=alloc, element=8 if where == "index_input" else 4):
            a(pte).memory_offset_low = _plan(pte).non_const_buffer_sizes[1] - element

        cases += [
            _program_case(f"{where}_memory_id_without_an_arena", "conv_linear", memory_id,
                          "InvalidProgram", "memory id 5 names no planned arena"),
            _program_case(f"{where}_memory_id_zero", "conv_linear", memory_id_zero, "InvalidProgram", "memory id 0 names no planned arena"),
            _program_case(f"{where}_offset_past_its_arena", "conv_linear", offset_past_arena,
                          "InvalidProgram", "at offset 2147483648 do not fit arena 1"),
            _program_case(f"{where}_offset_past_4_GiB", "conv_linear", offset_high_bits,
                          "InvalidProgram", "do not fit arena 1"),
            _program_case(f"{where}_ends_past_its_arena", "conv_linear", end_past_arena,
                          "InvalidProgram", "do not fit arena 1 of 512 bytes"),
        ]

    def huge_arena(pte):
        _plan(pte).non_const_buffer_sizes[1] = 2**62

    def max_arena(pte):
        _plan(pte).non_const_buffer_sizes[1] = 2**63 - 1

    def small_arena(pte):
        _plan(pte).non_const_buffer_sizes[1] = 16

    def no_arena(pte):
        _plan(pte).non_const_buffer_sizes = [0]

    cases += [
        _program_case("arena_of_4_EiB", "conv_linear", huge_arena, "MemoryAllocationFailed", "claims 4611686018427387904 bytes"),
        _program_case("arena_size_near_the_int64_limit", "conv_linear", max_arena, "MemoryAllocationFailed", "claims"),
        _program_case("arena_smaller_than_its_tensors", "conv_linear", small_arena, "InvalidProgram", "do not fit arena 1 of 16 bytes"),
        _program_case("planned_tensors_without_arenas", "conv_linear", no_arena, "InvalidProgram", "names no planned arena"),
    ]
    return cases


def _list_cases() -> list[Case]:
    def items(index, value):
        def mutate(pte):
            _plan(pte).values[index].items = value
        return mutate

    return [
        _program_case("int_list_item_past_the_values", "conv_linear", items(7, [6, 999]), "InvalidProgram", "refers to value 999"),
        _program_case("int_list_item_negative", "conv_linear", items(7, [6, -1]), "InvalidProgram", "refers to value -1"),
        _program_case("int_list_item_is_a_tensor", "conv_linear", items(7, [6, 4]), "InvalidProgram", "value 4 has the wrong kind"),
        _program_case("int_list_item_is_itself", "conv_linear", items(12, [6, 12]), "InvalidProgram", "value 12 has the wrong kind"),
        _program_case("tensor_list_item_past_the_values", "conv_linear", items(19, [15, 999]),
                      "InvalidProgram", "refers to value 999"),
        _program_case("tensor_list_item_negative", "conv_linear", items(19, [15, -5]), "InvalidProgram", "refers to value -5"),
        _program_case("tensor_list_item_is_an_int", "conv_linear", items(19, [15, 6]), "InvalidProgram", "value 6 has the wrong kind"),
        _program_case("tensor_list_is_empty", "conv_linear", items(19, []), "InvalidArgument", "non-empty list of tensors"),
    ]


def _instruction_cases() -> list[Case]:
    cases = []

    def op_index(value):
        def mutate(pte):
            _instructions(pte)[0].op_index = value
        return mutate

    cases += [
        _program_case("kernel_op_index_past_the_operators", "conv_linear", op_index(99), "InvalidProgram", "operator index 99 outside"),
        _program_case("kernel_op_index_negative", "conv_linear", op_index(-1), "InvalidProgram", "operator index -1 outside"),
    ]
    for k in range(6):
        def arg(pte, k=k, value=999):
            _instructions(pte)[k].args[0] = value

        def negative_arg(pte, k=k):
            _instructions(pte)[k].args[-1] = -3

        def missing_arg(pte, k=k):  # two fewer (one fewer only drops the out alias)
            del _instructions(pte)[k].args[1:3]

        def extra_arg(pte, k=k):
            _instructions(pte)[k].args.insert(0, 6)

        def wrong_kind(pte, k=k):
            args = _instructions(pte)[k].args
            args[1] = 9 if args[1] != 9 else 6  # a Double where the schema wants something else

        cases += [
            _program_case(f"kernel_{k}_argument_past_the_values", "conv_linear", arg, "InvalidProgram", "refers to value 999"),
            _program_case(f"kernel_{k}_argument_negative", "conv_linear", negative_arg, "InvalidProgram", "refers to value -3"),
            _program_case(f"kernel_{k}_one_argument_too_few", "conv_linear", missing_arg, "InvalidArgument", "arguments, got"),
            _program_case(f"kernel_{k}_one_argument_too_many", "conv_linear", extra_arg, "InvalidArgument", "arguments, got"),
            _program_case(f"kernel_{k}_argument_of_the_wrong_kind", "conv_linear", wrong_kind, "InvalidType", ": expected"),
        ]

    def unknown_operator(pte):
        _plan(pte).operators[5].name = "aten::no_such_operator"

    def unknown_overload(pte):
        _plan(pte).operators[4].overload = "no_such_overload"

    def empty_operator_name(pte):
        _plan(pte).operators[2].name = ""

    cases += [
        _program_case("operator_unknown", "conv_linear", unknown_operator, "OperatorMissing",
                      "aten::no_such_operator"),
        _program_case("operator_overload_unknown", "conv_linear", unknown_overload, "OperatorMissing",
                      "no_such_overload"),
        _program_case("operator_name_empty", "conv_linear", empty_operator_name, "InvalidProgram", "operator 2 without a name"),
    ]
    return cases


def _plan_cases() -> list[Case]:
    def field(name, value):
        def mutate(pte):
            setattr(_plan(pte), name, value)
        return mutate

    def chain_field(name, value):
        def mutate(pte):
            setattr(_plan(pte).chains[0], name, value)
        return mutate

    def no_plans(pte):
        pte.program.execution_plan = []

    def no_chains(pte):
        _plan(pte).chains = []

    def two_chains(pte):
        _plan(pte).chains.append(_plan(pte).chains[0])

    return [
        _program_case("plan_input_past_the_values", "conv_linear", field("inputs", [4, 999]), "InvalidProgram", "refers to value 999"),
        _program_case("plan_input_negative", "conv_linear", field("inputs", [-1, 5]), "InvalidProgram", "refers to value -1"),
        _program_case("plan_input_is_an_int", "conv_linear", field("inputs", [4, 6]), "InvalidType", "expected Int, got Tensor"),
        _program_case("plan_input_is_a_constant", "conv_linear", field("inputs", [0, 5]), "InvalidProgram", "a constant (set_input would write into it)"),
        _program_case("plan_output_past_the_values", "conv_linear", field("outputs", [999]), "InvalidProgram", "refers to value 999"),
        _program_case("plan_output_negative", "conv_linear", field("outputs", [-2]), "InvalidProgram", "refers to value -2"),
        _program_case("plan_without_outputs", "conv_linear", field("outputs", []), "", ""),
        _program_case("chain_input_past_the_values", "conv_linear", chain_field("inputs", [999]), "InvalidProgram", "chain input 0 refers to value 999"),
        _program_case("chain_output_past_the_values", "conv_linear", chain_field("outputs", [999]), "InvalidProgram", "chain output 0 refers to value 999"),
        _program_case("program_without_methods", "conv_linear", no_plans, "InvalidProgram", "has no methods"),
        _program_case("method_without_chains", "conv_linear", no_chains, "NotSupported", "method has 0 chains"),
        _program_case("method_with_two_chains", "conv_linear", two_chains, "NotSupported", "method has 2 chains"),
        _program_case("method_name_empty", "conv_linear", field("name", ""), "InvalidProgram", "method without a name"),
    ]


def _control_flow_cases() -> list[Case]:
    def jump(k, **changes):
        def mutate(pte):
            jumps = [i for i in _instructions(pte) if isinstance(i, s.JumpFalseCall)]
            for key, value in changes.items():
                setattr(jumps[k], key, value)
        return mutate

    def move(**changes):
        def mutate(pte):
            moves = [i for i in _instructions(pte) if isinstance(i, s.MoveCall)]
            for key, value in changes.items():
                setattr(moves[0], key, value)
        return mutate

    def jump_to_itself(pte):
        instructions = _instructions(pte)
        jumps = [k for k, i in enumerate(instructions) if isinstance(i, s.JumpFalseCall)]
        instructions[jumps[1]].destination_instruction = jumps[1]

    def free_call(pte):
        _instructions(pte).append(s.FreeCall(999))

    def condition_is_a_double(pte):
        plan = _plan(pte)
        plan.values.append(s.Double(1.0))
        [i for i in _instructions(pte) if isinstance(i, s.JumpFalseCall)][0].cond_value_index = len(plan.values) - 1

    return [
        _program_case("jump_past_the_chain", "cond", jump(0, destination_instruction=999), "InvalidProgram", "jump to 999 outside the chain"),
        _program_case("jump_to_a_negative_instruction", "cond", jump(0, destination_instruction=-1),
                      "InvalidProgram", "jump to -1 outside the chain"),
        _program_case("jump_back_forever", "cond", jump(1, destination_instruction=0), "InvalidProgram",
                      "loop budget"),
        _program_case("jump_to_itself_forever", "cond", jump_to_itself, "InvalidProgram", "loop budget"),
        _program_case("jump_condition_past_the_values", "cond", jump(0, cond_value_index=999),
                      "InvalidProgram", "refers to value 999"),
        _program_case("jump_condition_is_a_double", "cond", condition_is_a_double, "InvalidProgram", "is not Bool, Int or a tensor"),
        _program_case("move_from_past_the_values", "cond", move(move_from=999), "InvalidProgram", "refers to value 999"),
        _program_case("move_to_negative", "cond", move(move_to=-1), "InvalidProgram", "refers to value -1"),
        _program_case("free_past_the_values", "cond", free_call, "InvalidProgram", "refers to value 999"),
    ]


def _delegate_cases() -> list[Case]:
    def delegate(**changes):
        def mutate(pte):
            d = _plan(pte).delegates[0]
            for key, value in changes.items():
                setattr(d, key, value)
        return mutate

    def processed(**changes):
        def mutate(pte):
            p = _plan(pte).delegates[0].processed
            for key, value in changes.items():
                setattr(p, key, value)
        return mutate

    def call(**changes):
        def mutate(pte):
            c = [i for i in _instructions(pte) if isinstance(i, s.DelegateCall)][0]
            for key, value in changes.items():
                setattr(c, key, value)
        return mutate

    def truncated_blob(pte):
        index = _plan(pte).delegates[0].processed.index
        pte.segments[index] = pte.segments[index][:40]

    def empty_blob(pte):
        index = _plan(pte).delegates[0].processed.index
        pte.segments[index] = b""

    def blob_magic(pte):
        index = _plan(pte).delegates[0].processed.index
        pte.segments[index] = b"XXXX" + pte.segments[index][4:]

    def call_args_missing(pte):
        c = [i for i in _instructions(pte) if isinstance(i, s.DelegateCall)][0]
        c.args = c.args[:-1]

    return [
        _program_case("delegate_with_no_backend", "xnnpack", delegate(id="NoSuchBackend"), "NotSupported",
                      "NoSuchBackend"),
        _program_case("delegate_data_past_the_segments", "xnnpack", processed(index=99), "InvalidProgram", "data in segment 99"),
        _program_case("delegate_inline_data_missing", "xnnpack", processed(location=s.DataLocation.INLINE),
                      "InvalidProgram", "inline data 0 out of range"),
        _program_case("delegate_call_index_past_the_delegates", "xnnpack", call(delegate_index=5),
                      "InvalidProgram", "delegate index 5 outside the 1 delegates"),
        _program_case("delegate_call_argument_past_the_values", "xnnpack", call(args=[0, 999]),
                      "InvalidProgram", "refers to value 999"),
        _program_case("delegate_call_argument_missing", "xnnpack", call_args_missing, "InvalidArgument", "expected 1 inputs and 1 outputs"),
        _program_case("delegate_blob_truncated", "xnnpack", truncated_blob, "DelegateInvalidCompatibility", "outside the 40-byte blob"),
        _program_case("delegate_blob_empty", "xnnpack", empty_blob, "DelegateInvalidCompatibility", "expected magic 'TEX1', 0 bytes"),
        _program_case("delegate_blob_magic_wrong", "xnnpack", blob_magic, "DelegateInvalidCompatibility", "expected magic 'TEX1'"),
    ]


def _state_cases() -> list[Case]:
    def state(pte) -> s.Tensor:
        return next(v for v in _plan(pte).values
                    if isinstance(v, s.Tensor) and v.extra_tensor_info is not None)

    def mutable_segment(pte):
        state(pte).extra_tensor_info.mutable_data_segments_idx = 9

    def state_in_no_arena(pte):
        state(pte).allocation_info = None

    def state_data_index(pte):
        state(pte).data_buffer_idx = 999

    return [
        _program_case("mutable_buffer_data_segment_missing", "counter", mutable_segment, "InvalidProgram", "mutable data segment 9, which does not exist"),
        _program_case("mutable_buffer_not_planned", "counter", state_in_no_arena, "InvalidProgram", "writes its result into value 0, a constant"),
        _program_case("mutable_buffer_data_index_past_the_constants", "counter", state_data_index, "InvalidProgram", "initial value 999 outside"),
    ]


def _header_cases() -> list[Case]:
    def patched(name: str, offset: int, value: int, code: str, fragment: str = "") -> Case:
        def make():
            data = bytearray(base_bytes("conv_linear"))
            struct.pack_into("<Q", data, offset, value)
            return bytes(data), base("conv_linear")[1]
        return Case(name, "conv_linear", make, code, fragment)

    # Extended header at bytes [8, 32): magic "eh00", length, program_size,
    # segment_base_offset, segment_data_size (pte_file.ExtendedHeader).
    return [
        patched("header_program_size_past_the_file", 16, 10**9, "InvalidProgram", "truncated file"),
        patched("header_program_size_zero", 16, 0, "InvalidProgram", "the program is 0 bytes"),
        patched("header_segment_base_past_the_file", 24, 10**9, "InvalidProgram", "segment base offset"),
        patched("header_segment_base_overflows", 24, 2**64 - 64, "InvalidProgram", "segment base offset"),
    ]


def _runtime_input_cases() -> list[Case]:
    # TFLite's classes: negative or too-large gather indices arrive at run time.
    def with_index(name: str, index: list[int]) -> Case:
        def make():
            x = base("conv_linear")[1][0]
            return base_bytes("conv_linear"), (x, torch.tensor(index))
        return Case(name, "conv_linear", make, "InvalidArgument", "out of bound")

    return [
        with_index("gather_index_negative_past_the_start", [-11, 0]),
        with_index("gather_index_past_the_end", [0, 10]),
        with_index("gather_index_huge", [0, 2**62]),
        with_index("gather_index_most_negative", [-(2**63), 0]),
    ]


def _kernel_cases() -> list[Case]:
    # int_ops (base_programs.IntOps): instruction 0 a // b, 1 a % b, 2 and 3
    # slices (value 12 is the step 2 of x[1::2]), 4 index_select with the
    # constant ids, 5 scatter_add at the input ids `seg`.
    def with_inputs(name: str, code: str, fragment: str, mutate=None, **changed) -> Case:
        def make():
            pte, inputs = base("int_ops")
            if mutate is not None:
                mutate(pte)
            a, b, x, seg = inputs
            values = dict(a=a, b=b, x=x, seg=seg)
            values.update({k: torch.tensor(v, dtype=values[k].dtype) for k, v in changed.items()})
            return (serialize_pte(pte.program, pte.segments),
                    (values["a"], values["b"], values["x"], values["seg"]))
        return Case(name, "int_ops", make, code, fragment)

    def divide_a_by_a(pte):
        _instructions(pte)[0].args[1] = 2

    def step(value):
        def mutate(pte):
            _plan(pte).values[12] = s.Int(value)
        return mutate

    def constant_ids(values):
        def mutate(pte):
            seg = pte.program.constant_segment
            plan = _plan(pte)
            ids = next(v for v in plan.values if isinstance(v, s.Tensor)
                       and v.scalar_type == s.ScalarType.LONG and v.data_buffer_idx > 0)
            start = seg.offsets[ids.data_buffer_idx]
            data = bytearray(pte.segments[seg.segment_index])
            data[start:start + 24] = struct.pack("<3q", *values)
            pte.segments[seg.segment_index] = bytes(data)
        return mutate

    return [
        with_inputs("integer_division_by_zero", "InvalidArgument", "division by zero", b=[2, 0, 1, 1]),
        with_inputs("integer_remainder_by_zero", "InvalidArgument", "division by zero",
                    mutate=divide_a_by_a, b=[2, 3, 0, 1]),
        with_inputs("integer_division_of_the_minimum_by_minus_one", "", "",
                    a=[-(2**31), 1, 1, 1], b=[-1, 1, 1, 1]),
        with_inputs("strided_slice_step_zero", "InvalidArgument", "step", mutate=step(0)),
        with_inputs("strided_slice_step_negative", "InvalidArgument", "step", mutate=step(-1)),
        with_inputs("strided_slice_step_huge", "InvalidArgument", "cannot become", mutate=step(2**62)),
        with_inputs("segment_id_past_the_end", "InvalidArgument", "index", seg=[0, 9, 2]),
        with_inputs("segment_id_negative", "InvalidArgument", "index", seg=[0, -1, 2]),
        with_inputs("gather_constant_index_negative", "InvalidArgument", "index",
                    mutate=constant_ids([1, -20, 5])),
        with_inputs("gather_constant_index_past_the_end", "InvalidArgument", "index",
                    mutate=constant_ids([1, 2, 2**40])),
    ]


def all_cases() -> list[Case]:
    return (_tensor_cases() + _constant_cases() + _allocation_cases() + _list_cases()
            + _instruction_cases() + _plan_cases() + _control_flow_cases() + _delegate_cases()
            + _state_cases() + _header_cases() + _runtime_input_cases() + _kernel_cases())
