"""Op table, complex group (kernels/portable/complex_kernels.inc): building
complex tensors (complex, polar, view_as_complex), taking them apart
(view_as_real), conjugation and the FFT primitives (_fft_r2c, _fft_c2c,
_fft_c2r) reached through torch.fft. A listed real dtype (float32) is
proven by the samples whose real operand has it, a complex dtype by those
whose complex operand has it; FFT lengths cover powers of two, mixed radix
(6, 15, 12) and prime lengths (7, 11, 13: Bluestein's path). Argument
errors are checked by kernels/portable/test/complex_test.cpp.
"""

from __future__ import annotations

import torch

from harness import Kind, OpSpec, Sample
from samples import make

REDUCTION = Kind.REDUCTION
_PART = {torch.complex32: torch.float16, torch.complex64: torch.float32, torch.complex128: torch.float64}
_COMPLEX = {v: k for k, v in _PART.items()}


def _pair(dtype: torch.dtype) -> tuple[torch.dtype, torch.dtype]:
    """(real dtype, complex dtype) of a listed dtype."""
    return (_PART[dtype], dtype) if dtype.is_complex else (dtype, _COMPLEX.get(dtype, torch.complex64))


def _complex(dtype: torch.dtype) -> list[Sample]:
    real, _ = _pair(dtype)
    return [
        Sample("regular", (make((3, 4), real), make((3, 4), real)), torch.complex),
        Sample("broadcast", (make((2, 1, 4), real), make((3, 1), real)), torch.complex),
        Sample("rank0", (make((), real), make((), real)), torch.complex),
        Sample("empty", (make((0, 2), real), make((0, 2), real)), torch.complex),
    ]


def _polar(dtype: torch.dtype) -> list[Sample]:
    real, _ = _pair(dtype)
    return [
        Sample("regular", (make((3, 4), real, positive=True), make((3, 4), real)), torch.polar),
        Sample("broadcast", (make((4,), real, positive=True), make((2, 4), real)), torch.polar),
        Sample("rank0", (make((), real, positive=True), make((), real)), torch.polar),
    ]


def _view_as_real(dtype: torch.dtype) -> list[Sample]:
    _, cplx = _pair(dtype)
    return [
        Sample("regular", (make((3, 4), cplx),), torch.view_as_real),
        Sample("rank0", (make((), cplx),), torch.view_as_real),
        Sample("empty", (make((0, 3), cplx),), torch.view_as_real),
    ]


def _view_as_complex(dtype: torch.dtype) -> list[Sample]:
    real, _ = _pair(dtype)
    return [
        Sample("regular", (make((3, 4, 2), real),), torch.view_as_complex),
        Sample("one_dim", (make((2,), real),), torch.view_as_complex),
        Sample("empty", (make((0, 2), real),), torch.view_as_complex),
    ]


def _conj(dtype: torch.dtype) -> list[Sample]:
    _, cplx = _pair(dtype)
    return [
        Sample("regular", (make((3, 4), cplx),), torch.conj),
        Sample("rank0", (make((), cplx),), torch.conj),
    ]


def _conj_physical(dtype: torch.dtype) -> list[Sample]:
    _, cplx = _pair(dtype)
    return [Sample("regular", (make((3, 4), cplx),), torch.conj_physical),
            Sample("rank0", (make((), cplx),), torch.conj_physical)]


def _rfft(dtype: torch.dtype) -> list[Sample]:
    real, _ = _pair(dtype)
    f = torch.fft
    return [
        Sample("regular", (make((3, 8), real),), lambda x: f.rfft(x)),
        Sample("mixed_radix", (make((2, 15), real),), lambda x: f.rfft(x, norm="ortho")),
        Sample("prime_length", (make((13,), real),), lambda x: f.rfft(x, norm="forward")),
        Sample("two_sided", (make((4, 7), real),), lambda x: f.fft(x, dim=0)),
        Sample("two_dims", (make((5, 6, 4), real),), lambda x: f.rfft2(x)),
        Sample("padded", (make((2, 5), real),), lambda x: f.rfft(x, n=11)),
    ]


def _c2c(dtype: torch.dtype) -> list[Sample]:
    _, cplx = _pair(dtype)
    f = torch.fft
    return [
        Sample("regular", (make((3, 8), cplx),), lambda x: f.fft(x)),
        Sample("inverse", (make((12,), cplx),), lambda x: f.ifft(x)),
        Sample("prime_length", (make((2, 11), cplx),), lambda x: f.fft(x, norm="ortho")),
        Sample("n_dims", (make((3, 5, 7), cplx),), lambda x: f.fftn(x, dim=(0, 2))),
        Sample("inverse_by_n", (make((6, 10), cplx),), lambda x: f.ifft2(x, norm="forward")),
    ]


def _c2r(dtype: torch.dtype) -> list[Sample]:
    _, cplx = _pair(dtype)
    f = torch.fft
    return [
        Sample("regular", (make((3, 5), cplx),), lambda x: f.irfft(x)),
        Sample("odd_length", (make((2, 6), cplx),), lambda x: f.irfft(x, n=11)),
        Sample("truncating", (make((9,), cplx),), lambda x: f.irfft(x, n=6, norm="ortho")),
        Sample("two_dims", (make((4, 3, 5), cplx),), lambda x: f.irfft2(x)),
        Sample("hermitian", (make((2, 7), cplx),), lambda x: f.hfft(x, norm="forward")),
    ]


# Kernels of other groups that move complex64 / complex128 elements by
# width (the FFT programs of torch.fft and torch.stft use them): the op
# table offers those dtypes for them too (op_table._index).
COMPLEX_DATA_MOVEMENT = (
    "aten::_to_copy.out", "aten::slice_copy.Tensor_out", "aten::permute_copy.out",
    "aten::squeeze_copy.dims_out", "aten::constant_pad_nd.out", "aten::view_copy.out",
    "aten::clone.out", "aten::unsqueeze_copy.out", "aten::cat.out",
    "aten::copy.out", "aten::stack.out", "aten::index_select.out", "aten::gather.out",
    "aten::expand_copy.out", "aten::select_copy.int_out", "aten::alias_copy.out",
    "aten::transpose_copy.int_out", "aten::t_copy.out", "executorch_prim::et_view.default",
)
# Kernels of other groups that compute in complex64 / complex128
# (kernels/portable/support/complex.h): offered those dtypes the same way.
COMPLEX_ARITHMETIC = (
    "aten::add.out", "aten::add.Scalar_out", "aten::sub.out", "aten::sub.Scalar_out",
    "aten::rsub.Scalar_out", "aten::rsub.Tensor_out", "aten::mul.out", "aten::mul.Scalar_out",
    "aten::div.out", "aten::div.Scalar_out", "aten::neg.out", "aten::abs.out",
    "aten::reciprocal.out", "aten::exp.out", "aten::log.out", "aten::sqrt.out",
    "aten::pow.Tensor_Scalar_out", "aten::pow.Tensor_Tensor_out", "aten::pow.Scalar_out",
    "aten::sin.out", "aten::cos.out", "aten::tan.out", "aten::sinh.out", "aten::cosh.out",
    "aten::tanh.out", "aten::sigmoid.out", "aten::rsqrt.out", "aten::isnan.out",
    "aten::isinf.out", "aten::eq.Tensor_out",
    "aten::eq.Scalar_out", "aten::ne.Tensor_out", "aten::ne.Scalar_out", "aten::where.self_out",
    "aten::fill.Scalar_out", "aten::fill.Tensor_out", "aten::full.out", "aten::full_like.out",
    "aten::zeros_like.out", "aten::ones_like.out", "aten::sum.IntList_out", "aten::sum.out",
    "aten::mean.out", "aten::mean.dtype_out", "aten::prod.int_out", "aten::prod.out",
    "aten::mm.out", "aten::bmm.out", "aten::addmm.out",
)
COMPLEX_DTYPES = (torch.complex64, torch.complex128)
COMPLEX_HALF_MOVEMENT = ("aten::_to_copy.out", "aten::clone.out")  # complex32 too
# The dtypes the complex group's samples are drawn for (each spec's listing
# names those its kernel proves).
OFFERED = (torch.float32, torch.float64, torch.float16, torch.complex32, torch.complex64,
           torch.complex128)

SPECS = [
    OpSpec("aten::complex.out", torch.complex, _complex, dtypes=OFFERED),
    OpSpec("aten::polar.out", torch.polar, _polar, dtypes=OFFERED),
    OpSpec("aten::view_as_real_copy.out", torch.view_as_real, _view_as_real, dtypes=OFFERED),
    OpSpec("aten::view_as_complex_copy.out", torch.view_as_complex, _view_as_complex, dtypes=OFFERED),
    OpSpec("aten::_conj_copy.out", torch.conj, _conj, dtypes=OFFERED),
    OpSpec("aten::_conj_physical.out", torch.conj_physical, _conj_physical, dtypes=OFFERED),
    OpSpec("aten::_fft_r2c.out", torch.fft.rfft, _rfft, dtypes=OFFERED, kind=REDUCTION),
    OpSpec("aten::_fft_c2c.out", torch.fft.fft, _c2c, dtypes=OFFERED, kind=REDUCTION),
    OpSpec("aten::_fft_c2r.out", torch.fft.irfft, _c2r, dtypes=OFFERED, kind=REDUCTION),
]
