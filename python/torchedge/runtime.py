"""Run .pte programs in the torchedge C++ runtime from Python.

    m = torchedge.runtime.load("model.pte")      # or load(pte.buffer)
    y = m.forward(x)                              # torch.Tensor(s) in and out

Tensors cross into C++ without libtorch: each input is passed as its dtype's
wire value, its sizes and its (contiguous) memory, read in place; outputs
come back as bytes and are wrapped as torch.Tensors (copies, since the
runtime reuses its output memory on the next call). When the program records
the method's output structure (a pytree spec), outputs are returned in that
structure (a tuple, a dict, ...), exactly as the eager module returned them.
"""

from __future__ import annotations

import os
import weakref
from typing import Any, Optional, Sequence, Union

import torch

from torchedge import _C

# ET12 wire value <-> torch dtype (c10::ScalarType numbering).
_WIRE_TO_DTYPE = {
    0: torch.uint8, 1: torch.int8, 2: torch.int16, 3: torch.int32, 4: torch.int64,
    5: torch.float16, 6: torch.float32, 7: torch.float64, 8: torch.complex32, 9: torch.complex64,
    10: torch.complex128, 11: torch.bool,
    15: torch.bfloat16, 27: torch.uint16, 28: torch.uint32, 29: torch.uint64,
}
_DTYPE_TO_WIRE = {v: k for k, v in _WIRE_TO_DTYPE.items()}


class TorchEdgeRuntimeError(RuntimeError):
    """A runtime failure: `code` (int), `code_name` ("InvalidProgram", ...), message."""

    def __init__(self, code: int, code_name: str, message: str) -> None:
        super().__init__(f"[{code_name}] {message}")
        self.code = code
        self.code_name = code_name
        self.message = message


def _translate(error: _C.TorchEdgeError) -> TorchEdgeRuntimeError:
    code, name, message = error.args
    return TorchEdgeRuntimeError(code, name, message)


def _to_wire(value: Any, index: int, dim_order: Optional[Sequence[int]] = None) -> Any:
    """A tensor as (dtype, sizes, bytes[, dim order]): its elements laid out
    in `dim_order` (the program's for this input, e.g. column-major for a
    matrix exported from a linalg result), row-major when None."""
    if isinstance(value, torch.Tensor):
        if value.dtype not in _DTYPE_TO_WIRE:
            raise TorchEdgeRuntimeError(0x13, "InvalidType",
                                        f"input {index}: dtype {value.dtype} is not supported")
        t = value.detach().cpu()
        permuted = dim_order is not None and list(dim_order) != list(range(t.dim()))
        laid_out = (t.permute(list(dim_order)) if permuted else t).contiguous()
        # A byte view gives the buffer protocol for every dtype (bf16 included).
        flat = laid_out.reshape(-1).view(torch.uint8) if t.numel() else torch.empty(0, dtype=torch.uint8)
        wire = (_DTYPE_TO_WIRE[t.dtype], list(t.shape), flat.numpy())
        return wire + (list(dim_order),) if permuted else wire
    if isinstance(value, (bool, int, float)):
        return value
    raise TorchEdgeRuntimeError(0x13, "InvalidType",
                                f"input {index}: unsupported Python type {type(value).__name__}")


def _from_wire(value: Any) -> Any:
    if not isinstance(value, tuple):
        return value
    dtype, sizes, dim_order, data = value
    torch_dtype = _WIRE_TO_DTYPE[dtype]
    if len(data) == 0:
        flat = torch.empty(0, dtype=torch_dtype)
    else:
        flat = torch.frombuffer(bytearray(data), dtype=torch_dtype)
    # The memory is laid out in dim order; permute back to logical order.
    physical = [sizes[d] for d in dim_order]
    t = flat.reshape(physical)
    inverse = [dim_order.index(d) for d in range(len(dim_order))]
    return t.permute(inverse) if inverse != sorted(inverse) else t


class Method:
    """One method of a loaded program; call it with the exported inputs."""

    def __init__(self, program: "Program", name: str) -> None:
        self._program = program
        self.name = name

    @property
    def meta(self) -> dict:
        return self._program._meta(self.name)

    def __call__(self, *inputs: Any) -> Any:
        return self._program.run_method(self.name, inputs)


class Program:
    """A .pte loaded into the C++ runtime (verified at load)."""

    def __init__(self, native: _C.Program, output_specs: dict[str, Any],
                 tracer: Any = None) -> None:
        self._native = native
        self._output_specs = output_specs
        self._tracer = tracer
        self.method_names: list[str] = list(native.method_names())
        self.data_files: list[DataFile] = []  # set by load(): the .ptd files it reads

    def _meta(self, name: str) -> dict:
        try:
            return self._native.method_meta(name)
        except _C.TorchEdgeError as e:
            raise _translate(e) from None

    def method(self, name: str) -> Method:
        if name not in self.method_names:
            raise TorchEdgeRuntimeError(0x20, "NotFound",
                                        f"no method named '{name}' (the program has: "
                                        f"{', '.join(self.method_names)})")
        return Method(self, name)

    def __getattr__(self, name: str) -> Method:
        if name.startswith("_"):
            raise AttributeError(name)
        if name in self.__dict__.get("method_names", ()):
            return Method(self, name)
        raise AttributeError(f"program has no method '{name}' "
                             f"(methods: {', '.join(self.__dict__.get('method_names', ()))})")

    def _input_dim_orders(self, name: str) -> list:
        """The dim order each tensor input of `name` was exported with (None
        for non-tensor inputs), cached per method."""
        orders = self.__dict__.setdefault("_dim_orders", {})
        if name not in orders:
            inputs = self._meta(name)["inputs"]
            orders[name] = [info["dim_order"] if info else None for info in inputs]
        return orders[name]

    def run_method(self, name: str, inputs: Sequence[Any]) -> Any:
        orders = self._input_dim_orders(name) if name in self.method_names else []
        wire = [_to_wire(v, i, orders[i] if i < len(orders) and isinstance(v, torch.Tensor)
                         and orders[i] is not None and len(orders[i]) == v.dim() else None)
                for i, v in enumerate(inputs)]
        try:
            outputs = self._native.run(name, wire)
        except _C.TorchEdgeError as e:
            raise _translate(e) from None
        tensors = [_from_wire(o) for o in outputs]
        spec = self._output_specs.get(name)
        if spec is not None:
            try:
                return torch.utils._pytree.tree_unflatten(tensors, spec)
            except Exception:  # a spec we cannot apply: fall back to the flat list
                pass
        return tensors[0] if len(tensors) == 1 else tuple(tensors)

    def etdump(self) -> bytes:
        """The ETDump file bytes recorded so far (load(..., etdump=True));
        torchedge.devtools.parse_etdump / Inspector read them."""
        if self._tracer is None:
            raise RuntimeError("this program was loaded without etdump=True")
        return bytes(self._tracer.serialize())

    def write_etdump(self, path: Union[str, os.PathLike]) -> None:
        """Writes etdump() to `path`; warns when events or captures were dropped."""
        data = self.etdump()
        with open(os.fspath(path), "wb") as f:
            f.write(data)
        if self._tracer.dropped_events or self._tracer.dropped_debug_events:
            import warnings

            warnings.warn(f"ETDump incomplete: {self._tracer.dropped_events} events and "
                          f"{self._tracer.dropped_debug_events} intermediates dropped (raise "
                          "etdump_events / debug_buffer_size)", RuntimeWarning, stacklevel=2)

    def reset_etdump(self) -> None:
        """Forgets the events recorded so far (the buffers are reused)."""
        if self._tracer is not None:
            self._tracer.reset()

    def planned_bytes(self, name: str = "forward") -> int:
        try:
            self._native.load_method(name)
            return int(self._native.planned_bytes(name))
        except _C.TorchEdgeError as e:
            raise _translate(e) from None


def _output_specs(data: bytes) -> dict[str, Any]:
    """Reads each method's output pytree spec (ContainerMetadata), if recorded."""
    specs: dict[str, Any] = {}
    try:
        from torchedge.serialize._generated.executorch_flatbuffer.Program import Program as FbProgram
        root = FbProgram.GetRootAs(data, 0)
        for i in range(root.ExecutionPlanLength()):
            plan = root.ExecutionPlan(i)
            meta = plan.ContainerMetaType()
            encoded = meta.EncodedOutStr() if meta is not None else None
            if encoded:
                specs[plan.Name().decode()] = torch.utils._pytree.treespec_loads(encoded.decode())
    except Exception:  # specs are a convenience; a program without them still runs
        return {}
    return specs


def _read_program_data(path: str) -> bytes:
    """The flatbuffer part of a .pte (not the segments), for reading metadata."""
    with open(path, "rb") as f:
        head = f.read(32)
        size = -1
        if len(head) >= 24 and head[8:12] == b"eh00":
            size = int.from_bytes(head[16:24], "little")
        f.seek(0)
        return f.read(size)


class DataFile:
    """A .ptd file opened (verified, mapped) once in the C++ runtime.

    Programs loaded with the same DataFile read its tensors in place from one
    mapping: two task heads over one frozen backbone hold one copy of its
    weights. load(..., data_files=[path]) reuses the DataFile of a path that
    is still open (same file, same mmap setting), so passing paths shares too.
    """

    def __init__(self, native: Any, path: str) -> None:
        self._native = native
        self.path = path

    def keys(self) -> list[str]:
        """Names of the entries (tensor names) in the file."""
        return list(self._native.keys())

    def __repr__(self) -> str:
        return f"DataFile({self.path!r}, {len(self.keys())} entries)"


_open_data_files: "weakref.WeakValueDictionary[tuple, DataFile]" = weakref.WeakValueDictionary()


def load_data(path: Union[str, os.PathLike], *, mmap: bool = True) -> DataFile:
    """Opens a .ptd (or returns the one already open for it); raises
    TorchEdgeRuntimeError for a missing, truncated or malformed file."""
    path = os.fspath(path)
    try:
        st = os.stat(path)
        key = (os.path.realpath(path), st.st_mtime_ns, st.st_size, mmap)
    except OSError:
        key = None  # let the runtime report the missing file
    cached = _open_data_files.get(key) if key is not None else None
    if cached is not None:
        return cached
    try:
        data_file = DataFile(_C.DataFile.open(path, mmap), path)
    except _C.TorchEdgeError as e:
        raise _translate(e) from None
    if key is not None:
        _open_data_files[key] = data_file
    return data_file


KERNEL_LIBRARIES = ("optimized", "portable")
_default_kernels = "optimized"


def set_kernel_library(kernels: str) -> None:
    """Sets the CPU kernel library that later load() calls use by default.

    "optimized" (the default): SIMD + threaded kernels for the hot operators,
    falling back to the portable kernels for everything else; "portable": the
    reference kernels only. Programs already loaded keep their kernels.
    """
    global _default_kernels
    if kernels not in KERNEL_LIBRARIES:
        raise ValueError(f"kernels must be one of {KERNEL_LIBRARIES}, got {kernels!r}")
    _default_kernels = kernels


def set_num_threads(num_threads: int) -> None:
    """Threads of the shared pool (optimized kernels and XNNPACK delegates)."""
    _C.set_num_threads(num_threads)


def load(source: Union[str, os.PathLike, bytes, bytearray, memoryview], *, mmap: bool = True,
         full_verification: bool = True, kernels: str | None = None, etdump: bool = False,
         debug_buffer_size: int = 0, etdump_events: int = 1 << 18,
         data_files: Sequence[Union[str, os.PathLike, DataFile]] = ()) -> Program:
    """Loads a program from a path or from bytes; raises TorchEdgeRuntimeError.

    `data_files`: the .ptd files (paths or load_data() results) holding the
    tensors a program exported with to_pte(external_data=...) keeps outside
    the .pte, searched in order. A missing tensor, or one whose dtype or
    shape differs from the program's, fails when the method is first loaded
    (NotFound / InvalidExternalData naming the tensor and the file).

    `kernels` picks the CPU kernel library ("optimized" or "portable"; default:
    set_kernel_library()'s setting, initially "optimized").

    `etdump=True` attaches an ETDump tracer (docs/devtools.md): every method
    load and every instruction of every run is recorded into a buffer of
    `etdump_events` records (later events are dropped and counted), and with
    `debug_buffer_size` > 0 every instruction's output is copied into a
    buffer of that many bytes. Read the result with Program.etdump() or
    Program.write_etdump(path).
    """
    kernels = _default_kernels if kernels is None else kernels
    if kernels not in KERNEL_LIBRARIES:
        raise ValueError(f"kernels must be one of {KERNEL_LIBRARIES}, got {kernels!r}")
    if debug_buffer_size and not etdump:
        raise ValueError("debug_buffer_size needs etdump=True")
    if etdump_events < 1 or debug_buffer_size < 0:
        raise ValueError("etdump_events must be positive and debug_buffer_size non-negative")
    tracer = _C.ETDumpTracer(etdump_events, debug_buffer_size) if etdump else None
    if isinstance(data_files, (str, os.PathLike, DataFile)):
        data_files = [data_files]
    files = [f if isinstance(f, DataFile) else load_data(f, mmap=mmap) for f in data_files]
    natives = [f._native for f in files]
    try:
        if isinstance(source, (bytes, bytearray, memoryview)):
            data = bytes(source)
            native = _C.Program.from_bytes(data, full_verification, kernels, tracer, natives)
        else:
            path = os.fspath(source)
            native = _C.Program.from_file(path, mmap, full_verification, kernels, tracer, natives)
            data = _read_program_data(path)
    except _C.TorchEdgeError as e:
        raise _translate(e) from None
    program = Program(native, _output_specs(data), tracer)
    program.data_files = files  # keeps the Python handles (and the cache entries) alive
    return program


def registered_kernels() -> list[str]:
    """Names of every kernel linked into the runtime ("aten::add.out", ...)."""
    return list(_C.registered_kernels())
