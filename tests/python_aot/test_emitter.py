"""Emission: out-variant operators, argument order and encoding, values, methods."""

from __future__ import annotations

import torch
import torch.nn as nn
import torch.nn.functional as F
import pytest

import torchedge
from models import MODELS
from torchedge.serialize import schema as s

aten = torch.ops.aten

# Which value kinds may pass an argument of each schema type.
_KINDS = {
    "Tensor": (s.Tensor,),
    "int": (s.Int,),
    "float": (s.Double,),
    "bool": (s.Bool,),
    "number": (s.Int, s.Double, s.Bool),
    "List[int]": (s.IntList,),
    "List[float]": (s.DoubleList,),
    "List[bool]": (s.BoolList,),
    "List[Tensor]": (s.TensorList,),
    "List[Optional[Tensor]]": (s.OptionalTensorList,),
    "ScalarType": (s.Int,),
    "MemoryFormat": (s.Int,),
    "Layout": (s.Int,),
    "Device": (s.Int,),
    "str": (s.String,),
}


def _lower(model, *inputs, **kwargs):
    pte = torchedge.lower(model.eval(), inputs, **kwargs)
    return pte, pte.inspect().program.execution_plan[0]


def _calls(plan, with_returns: bool = False):
    """[(qualified operator name, [values of args])] in instruction order.

    ET12 appends the return slot(s) to the schema arguments; they are
    checked by _check_returns and left out here unless `with_returns`.
    """
    calls = []
    for i in plan.chains[0].instructions:
        name = plan.operators[i.op_index].qualified_name
        args = [plan.values[a] for a in i.args]
        # sym_size.int and default overloads ("aten::_assert_scalar", "aten::copy_")
        # have no return slots.
        if not with_returns and name.startswith("aten::") and "." in name and name != "aten::sym_size.int":
            args = args[: len(_schema(name).arguments)]
        calls.append((name, args))
    return calls


def _schema(qualified_name: str) -> torch.FunctionSchema:
    name, overload = qualified_name.split("::")[1].split(".")
    return getattr(getattr(aten, name), overload)._schema


def _check_returns(plan, instruction):
    """add.out: [..., out, out]; layer_norm.out: [..., o0, o1, o2, TensorList(o0, o1, o2)];
    split_with_sizes_copy.out (-> ()): [..., TensorList(o...), TensorList(o...)], a second
    list of the same tensors (upstream's runtime expects that slot)."""
    schema = _schema(plan.operators[instruction.op_index].qualified_name)
    n_args, n_returns = len(schema.arguments), len(schema.returns)
    args = instruction.args
    if n_returns == 0:
        assert len(args) == n_args + 1
        assert plan.values[args[-1]] == plan.values[args[-2]]
        assert isinstance(plan.values[args[-1]], s.TensorList)
        return
    assert len(args) == n_args + min(n_returns, 1)
    if n_returns == 1:
        assert args[-1] == args[n_args - 1]
    elif n_returns > 1:
        assert plan.values[args[-1]] == s.TensorList(list(args[n_args - n_returns : n_args]))


def _check_against_schema(plan, qualified, args):
    schema = _schema(qualified)
    assert len(args) == len(schema.arguments), qualified
    for argument, value in zip(schema.arguments, args):
        type_name = str(argument.real_type)
        optional = type_name.startswith("Optional[")
        if optional:
            type_name = type_name[len("Optional["):-1]
        if optional and isinstance(value, s.Null):
            continue
        assert isinstance(value, _KINDS[type_name]), (qualified, argument.name, value)
        if isinstance(value, s.IntList):
            assert all(isinstance(plan.values[i], s.Int) for i in value.items)
        if argument.alias_info is not None and argument.alias_info.is_write:
            outs = [value] if isinstance(value, s.Tensor) else [plan.values[i] for i in value.items]
            assert all(t.allocation_info is not None and t.data_buffer_idx == 0 for t in outs)


@pytest.mark.parametrize("name", sorted(MODELS))
def test_every_call_matches_its_out_schema(name):
    model, inputs = MODELS[name]()
    pte = torchedge.lower(model, inputs, methods=list(inputs))
    for plan in pte.inspect().program.execution_plan:
        for qualified, args in _calls(plan):
            if qualified.startswith("aten::") and qualified != "aten::sym_size.int":
                _check_against_schema(plan, qualified, args)
        for instruction in plan.chains[0].instructions:
            if plan.operators[instruction.op_index].name.startswith("aten::"):
                _check_returns(plan, instruction)


def test_add_uses_out_and_fills_alpha():
    class M(nn.Module):
        def forward(self, x, y):
            return x + y, x + 2
    _, plan = _lower(M(), torch.randn(3), torch.randn(3))
    (add, (x, y, alpha, out)), (add_scalar, (x2, two, alpha2, out2)) = _calls(plan)
    assert (add, add_scalar) == ("aten::add.out", "aten::add.Scalar_out")
    assert alpha == s.Int(1) and two == s.Int(2)
    # ET12 appends the return value: for an out-variant, the out tensor again
    (_, with_return), _ = _calls(plan, with_returns=True)
    assert len(with_return) == 5 and with_return[-1] is with_return[-2]
    assert plan.values[plan.inputs[0]] is x is x2 or x == x2


def test_layer_norm_has_three_outs_and_getitem_maps_to_out0():
    _, plan = _lower(nn.LayerNorm(8), torch.randn(2, 8))
    ((name, args),) = _calls(plan)
    assert name == "aten::native_layer_norm.out"
    call = plan.chains[0].instructions[0]
    inp, shape, weight, bias, eps, out0, out1, out2, returns = call.args
    assert plan.values[returns] == s.TensorList([out0, out1, out2])
    assert plan.values[shape] == s.IntList([plan.values.index(s.Int(8))])
    assert plan.values[eps] == s.Double(1e-5)
    assert plan.values[weight].data_buffer_idx > 0 and plan.values[bias].data_buffer_idx > 0
    assert plan.outputs == [out0]
    assert plan.values[out1].sizes == [2, 1] and plan.values[out2].sizes == [2, 1]
    assert len({plan.values[o].allocation_info.offset for o in (out0, out1, out2)}) == 3


def test_max_pool_arguments_in_schema_order():
    # Without the runtime-only rewrites the core ATen pool stays, indices and all.
    _, plan = _lower(nn.MaxPool2d(2, padding=1), torch.randn(1, 2, 6, 6), fuse_activations=False)
    ((name, args),) = _calls(plan)
    assert name == "aten::max_pool2d_with_indices.out"
    self_, kernel, stride, padding, dilation, ceil_mode, out, indices = args
    ints = lambda lst: [plan.values[i].int_val for i in lst.items]  # noqa: E731
    assert ints(kernel) == [2, 2] and ints(stride) == [2, 2]
    assert ints(padding) == [1, 1] and ints(dilation) == [1, 1]
    assert ceil_mode == s.Bool(False)
    assert out.scalar_type == s.ScalarType.FLOAT and indices.scalar_type == s.ScalarType.LONG
    # By default the unused indices are dropped: torchedge::max_pool2d, the
    # defaults filled in (stride = kernel), one out.
    _, plan = _lower(nn.MaxPool2d(2, padding=1), torch.randn(1, 2, 6, 6))
    ((name, args),) = _calls(plan)
    assert name == "torchedge::max_pool2d.out"
    self_, kernel, stride, padding, dilation, ceil_mode, out, returned = args  # + return slot
    assert returned == out
    assert ints(kernel) == [2, 2] and ints(stride) == [2, 2]
    assert ints(padding) == [1, 1] and ints(dilation) == [1, 1]
    assert ceil_mode == s.Bool(False) and out.scalar_type == s.ScalarType.FLOAT


def test_convolution_arguments():
    conv = nn.Conv2d(3, 4, 3, stride=2, padding=1, groups=1, bias=False)
    _, plan = _lower(conv, torch.randn(1, 3, 8, 8))
    ((name, args),) = _calls(plan)
    assert name == "aten::convolution.out"
    x, w, bias, stride, padding, dilation, transposed, output_padding, groups, out = args
    assert isinstance(bias, s.Null) and transposed == s.Bool(False) and groups == s.Int(1)
    assert w.sizes == [4, 3, 3, 3] and out.sizes == [1, 4, 4, 4]


def test_dtype_and_factory_ops_carry_dtype_in_the_out_tensor():
    class M(nn.Module):
        def forward(self, x):
            return x.to(torch.float16), torch.full_like(x, 3, dtype=torch.int32)
    _, plan = _lower(M(), torch.randn(4))
    calls = dict(_calls(plan))
    assert calls["aten::_to_copy.out"][-1].scalar_type == s.ScalarType.HALF
    non_blocking, memory_format = calls["aten::_to_copy.out"][1:3]
    assert non_blocking == s.Bool(False) and memory_format in (s.Null(), s.Int(1), s.Int(0))
    x, fill, memory_format, out = calls["aten::full_like.out"]
    assert fill == s.Int(3) and out.scalar_type == s.ScalarType.INT


def test_scalar_type_and_memory_format_wire_values():
    class M(nn.Module):
        def forward(self, x):
            return torch.sum(x, dim=0, dtype=torch.float64), x.clone(memory_format=torch.channels_last)
    _, plan = _lower(M(), torch.randn(1, 2, 3, 4))
    calls = dict(_calls(plan))
    assert s.Int(7) in calls["aten::sum.IntList_out"]  # float64
    clone_args = calls["aten::clone.out"]
    assert clone_args[1] == s.Int(2)  # channels_last
    assert clone_args[2].dim_order == [0, 2, 3, 1]


def test_outputs_are_planned_and_distinct_from_inputs():
    model, inputs = MODELS["multi_output"]()
    pte = torchedge.lower(model, inputs)
    plan = pte.inspect().program.execution_plan[0]
    assert len(plan.outputs) == 5 and len(set(plan.outputs)) == 5
    assert not set(plan.outputs) & set(plan.inputs)
    for index in plan.outputs:
        value = plan.values[index]
        assert isinstance(value, s.Tensor) and value.allocation_info is not None
    # the returned input and the repeated output are copies
    names = [name for name, _ in _calls(plan)]
    assert names.count("aten::clone.out") == 2
    assert plan.chains[0].inputs == plan.inputs and plan.chains[0].outputs == plan.outputs
    assert "sum" in plan.container_meta_type.encoded_out_str


def test_identity_model_copies_input_to_output():
    class Identity(nn.Module):
        def forward(self, x):
            return x
    _, plan = _lower(Identity(), torch.randn(3))
    assert [n for n, _ in _calls(plan)] == ["aten::clone.out"]
    assert plan.outputs != plan.inputs


def test_literals_are_deduplicated_and_inputs_are_not():
    class M(nn.Module):
        def forward(self, x):
            return x.sum(dim=[1]) + x.mean(dim=[1])
    _, plan = _lower(M(), torch.randn(2, 3))
    ints = [v for v in plan.values if isinstance(v, s.Int)]
    assert len(ints) == len({v.int_val for v in ints})


def test_constants_deduplicated_across_methods():
    model, inputs = MODELS["shared_weights"]()
    pte = torchedge.lower(model, inputs, methods=list(inputs))
    f = pte.inspect()
    forward, project = f.program.execution_plan
    assert (forward.name, project.name) == ("forward", "project")
    weight_bytes = 64 * 64 * 4
    # The weight as stored: [64, 64], or packed by to_pte's prepack_weights.
    big = lambda plan: [v for v in plan.values  # noqa: E731
                        if isinstance(v, s.Tensor) and v.data_buffer_idx
                        and v.sizes in ([64, 64], [4, 64, 16])]
    assert big(forward)[0].data_buffer_idx == big(project)[0].data_buffer_idx
    assert len(f.segments) == 1
    assert weight_bytes <= len(f.segments[0]) < 2 * weight_bytes
    offsets = f.program.constant_segment.offsets
    assert len(offsets) == 3  # reserved, weight, scale


def test_two_methods_two_execution_plans():
    model, inputs = MODELS["two_methods"]()
    pte = torchedge.lower(model, inputs, methods=["forward", "encode"])
    plans = pte.inspect().program.execution_plan
    assert [p.name for p in plans] == ["forward", "encode"] == list(pte.methods)
    assert [p.values[p.outputs[0]].sizes for p in plans] == [[5, 3], [5, 6]]
    # body weights are shared by both methods and stored once
    assert len(pte.inspect().program.constant_segment.offsets) == 1 + 6


def test_program_without_constants_has_no_segments():
    pte = torchedge.lower(nn.ReLU(), (torch.randn(3),))
    f = pte.inspect()
    assert f.program.constant_segment == s.SubsegmentOffsets(0, [0])
    assert f.program.segments == [] and f.segments == []
    assert f.header.segment_base_offset == 0


def test_stacktrace_points_at_user_code():
    class M(nn.Module):
        def forward(self, x):
            return torch.tanh(x)  # the line the frame must name
    _, plan = _lower(M(), torch.randn(2))
    (frames,) = plan.chains[0].stacktrace
    assert frames.items[-1].filename == __file__
    assert "torch.tanh(x)" in frames.items[-1].context
    pte = torchedge.lower(M(), (torch.randn(2),), include_stacktrace=False)
    assert pte.inspect().program.execution_plan[0].chains[0].stacktrace is None


def test_dynamic_shapes_emit_size_computations():
    class M(nn.Module):
        def forward(self, x):
            return x.view(x.shape[0], 3, 1) * 2
    dim = torch.export.Dim("n", max=16)
    _, plan = _lower(M(), torch.randn(4, 3), dynamic_shapes=({0: dim},))
    names = [n for n, _ in _calls(plan)]
    assert "aten::sym_size.int" in names
    view = dict(_calls(plan))["aten::view_copy.out"]
    assert view[-1].sizes == [16, 3, 1]
    assert view[-1].shape_dynamism == s.TensorShapeDynamism.DYNAMIC_BOUND


def test_unknown_option_is_rejected():
    with pytest.raises(TypeError):
        torchedge.lower(nn.ReLU(), (torch.randn(3),), no_such_option=1)


def test_tensor_list_and_optional_tensor_list_arguments():
    class M(nn.Module):
        def forward(self, x, idx):
            return x[idx], torch.cat([x, x * 2]), F.pad(x, (1, 1), value=0.5)

    x, idx = torch.randn(3), torch.tensor([2, 0])
    _, plan = _lower(M(), x, idx)
    calls = _calls(plan)
    for qualified, args in calls:
        _check_against_schema(plan, qualified, args)
    kinds = dict(calls)
    assert isinstance(kinds["aten::index.Tensor_out"][1], s.OptionalTensorList)
    assert isinstance(kinds["aten::cat.out"][0], s.TensorList)
