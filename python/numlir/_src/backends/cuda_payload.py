"""The cuda executable payload (docs/cuda-executable.md): packing it, and reading it back.

The compiler's cuda backend describes a program as a GPU module and a launch program of
buffers and steps; ``pack`` writes the bytes the runtime's ``cuda`` driver reads, checking
everything the driver would refuse, so that a bad program fails here with a ValueError that
names the field instead of at load time on a GPU machine. ``unpack`` reads a payload back
(tests, debugging). Wrap a payload into an executable image with
``numlir._runtime.wrap_image(payload, "cuda")``.
"""

from __future__ import annotations

import dataclasses
import struct
from typing import Sequence, Union

MAGIC = b"NLCUDA\x00\x01"
VERSION = 1
MODULE_FORMATS = ("ptx", "cubin", "fatbin")
BUFFER_KINDS = ("input", "output", "temporary", "constant")
MAX_BLOCK_THREADS = 1024
MAX_BLOCK_Z = 64
MAX_GRID_X = 2**31 - 1
MAX_GRID_YZ = 65535
MAX_KERNEL_NAME = 1024

_HEADER = struct.Struct("<8s8I3Q")  # 64 bytes
_BUFFER = struct.Struct("<IIQQ")
_KERNEL = struct.Struct("<II")
_STEP = struct.Struct("<II")
_LAUNCH = struct.Struct("<8I")  # kernel, grid[3], block[3], shared_bytes
_ARGUMENT = struct.Struct("<IIQ")
_COPY = struct.Struct("<IIQQQ")
_FILL = struct.Struct("<IIQQQ")
_U32 = 2**32
_U64 = 2**64


@dataclasses.dataclass(frozen=True)
class Buffer:
    """An entry of the buffer table. ``kind`` is "input", "output", "temporary" or
    "constant"; ``index`` the input or output position (0 for the others); ``size`` its
    bytes; ``offset`` where a constant's bytes start in the constant data (0 otherwise)."""

    kind: str
    index: int = 0
    size: int = 0
    offset: int = 0


@dataclasses.dataclass(frozen=True)
class Kernel:
    """A ``.entry`` of the module and how many pointer (``.u64``) parameters it takes."""

    name: str
    num_params: int


@dataclasses.dataclass(frozen=True)
class Launch:
    """Runs ``kernel`` (an index into the kernels) on a ``grid`` of ``block``s; argument i
    is the address of buffer ``args[i][0]`` plus ``args[i][1]`` bytes."""

    kernel: int
    grid: tuple[int, int, int]
    block: tuple[int, int, int]
    shared_bytes: int = 0
    args: tuple[tuple[int, int], ...] = ()


@dataclasses.dataclass(frozen=True)
class Copy:
    """Copies ``bytes`` bytes from buffer ``source`` at ``source_offset`` to buffer
    ``destination`` at ``destination_offset``."""

    source: int
    destination: int
    bytes: int
    source_offset: int = 0
    destination_offset: int = 0


@dataclasses.dataclass(frozen=True)
class Fill:
    """Fills ``bytes`` bytes of ``buffer`` from ``byte_offset`` with the ``pattern_size``-byte
    (1, 2, 4 or 8) little-endian ``pattern``."""

    buffer: int
    pattern_size: int
    bytes: int
    pattern: int = 0
    byte_offset: int = 0


Step = Union[Launch, Copy, Fill]


@dataclasses.dataclass(frozen=True)
class Payload:
    """What ``unpack`` reads: ``pack``'s arguments."""

    signature: str
    module: bytes
    module_format: str
    num_inputs: int
    num_outputs: int
    buffers: tuple[Buffer, ...]
    kernels: tuple[Kernel, ...]
    steps: tuple[Step, ...]
    constants: bytes


def _pad(data: bytearray) -> None:
    data.extend(b"\x00" * (-len(data) % 8))


def _check_uint(value: object, bits: int, what: str) -> int:
    if isinstance(value, bool) or not isinstance(value, int) or not 0 <= value < 2**bits:
        raise ValueError(f"{what} must be an integer from 0 to 2**{bits} - 1, got {value!r}")
    return value


def _signature_sides(signature: str) -> tuple[list[str], list[str]]:
    if not isinstance(signature, str) or signature.count("->") != 1:
        raise ValueError(f"the signature must be a str with one '->', got {signature!r}")
    inputs, outputs = signature.split("->")
    return ([s for s in inputs.split(";") if s], [s for s in outputs.split(";") if s])


def _byte_size(buffer: str) -> int:
    """Bytes of one signature buffer, "f32[4,8]" (runtime.h's element types)."""
    sizes = {"f16": 2, "bf16": 2, "f32": 4, "f64": 8, "i1": 1, "i8": 1, "i16": 2, "i32": 4,
             "i64": 8, "ui8": 1, "ui16": 2, "ui32": 4, "ui64": 8, "c64": 8, "c128": 16}
    dtype, _, rest = buffer.partition("[")
    if dtype not in sizes or not rest.endswith("]"):
        raise ValueError(f"malformed signature buffer {buffer!r}")
    dims = rest[:-1]
    count = 1
    for extent in dims.split(",") if dims else []:
        if not extent.isdigit():
            raise ValueError(f"malformed signature buffer {buffer!r}")
        count *= int(extent)
    return sizes[dtype] * count


def _check_dims(step: int, grid: Sequence[int], block: Sequence[int]) -> None:
    if len(grid) != 3 or len(block) != 3:
        raise ValueError(f"step {step}: grid and block must have 3 dimensions")
    for d in (*grid, *block):
        _check_uint(d, 32, f"step {step}'s grid and block dimensions")
    if 0 in grid or 0 in block:
        raise ValueError(f"step {step}: every grid and block dimension must be at least 1, "
                         f"got grid {tuple(grid)} and block {tuple(block)}")
    if (block[0] * block[1] * block[2] > MAX_BLOCK_THREADS or max(block[:2]) > MAX_BLOCK_THREADS
            or block[2] > MAX_BLOCK_Z):
        raise ValueError(f"step {step}: blocks of {tuple(block)} threads; at most "
                         f"{MAX_BLOCK_THREADS} threads, {MAX_BLOCK_Z} in z, fit in a block")
    if grid[0] > MAX_GRID_X or grid[1] > MAX_GRID_YZ or grid[2] > MAX_GRID_YZ:
        raise ValueError(f"step {step}: a grid of {tuple(grid)} blocks; at most "
                         f"({MAX_GRID_X}, {MAX_GRID_YZ}, {MAX_GRID_YZ}) fit")


def _in_bounds(buffer: Buffer, offset: int, size: int) -> bool:
    return offset + size <= buffer.size


def _check_buffers(buffers: Sequence[Buffer], input_sizes: list[int], output_sizes: list[int],
                   constants: bytes) -> None:
    seen: set[tuple[str, int]] = set()
    for i, b in enumerate(buffers):
        if not isinstance(b, Buffer):
            raise ValueError(f"buffer {i} must be a Buffer, got {b!r}")
        if b.kind not in BUFFER_KINDS:
            raise ValueError(f"buffer {i} has kind {b.kind!r}, not one of {BUFFER_KINDS}")
        _check_uint(b.index, 32, f"buffer {i}'s index")
        _check_uint(b.size, 64, f"buffer {i}'s size")
        _check_uint(b.offset, 64, f"buffer {i}'s offset")
        if b.kind in ("input", "output"):
            sizes = input_sizes if b.kind == "input" else output_sizes
            if b.index >= len(sizes):
                raise ValueError(f"buffer {i} is {b.kind} {b.index} of {len(sizes)}")
            if (b.kind, b.index) in seen:
                raise ValueError(f"buffer {i} is {b.kind} {b.index}, which an earlier buffer is")
            seen.add((b.kind, b.index))
            if b.size != sizes[b.index]:
                raise ValueError(f"buffer {i} ({b.kind} {b.index}) has {b.size} bytes, the "
                                 f"signature gives it {sizes[b.index]}")
            if b.offset:
                raise ValueError(f"buffer {i} ({b.kind} {b.index}) must have offset 0")
        elif b.kind == "temporary":
            if b.index or b.offset:
                raise ValueError(f"buffer {i} (temporary) must have index 0 and offset 0")
        else:
            if b.index:
                raise ValueError(f"buffer {i} (constant) must have index 0")
            if b.offset + b.size > len(constants):
                raise ValueError(f"buffer {i} (constant) is bytes {b.offset} to "
                                 f"{b.offset + b.size} of {len(constants)} bytes of constants")
    for kind, sizes in (("input", input_sizes), ("output", output_sizes)):
        for index in range(len(sizes)):
            if (kind, index) not in seen:
                raise ValueError(f"no buffer is {kind} {index}")


def _check_step(i: int, step: Step, buffers: Sequence[Buffer],
                kernels: Sequence[Kernel]) -> None:
    writable = ("output", "temporary")

    def buffer(index: int, what: str) -> Buffer:
        if not isinstance(index, int) or not 0 <= index < len(buffers):
            raise ValueError(f"step {i}'s {what} is buffer {index!r} of {len(buffers)}")
        return buffers[index]

    if isinstance(step, Launch):
        if not isinstance(step.kernel, int) or not 0 <= step.kernel < len(kernels):
            raise ValueError(f"step {i} launches kernel {step.kernel!r} of {len(kernels)}")
        kernel = kernels[step.kernel]
        if len(step.args) != kernel.num_params:
            raise ValueError(f"step {i} passes {len(step.args)} arguments to kernel "
                             f"{step.kernel} {kernel.name!r}, which takes {kernel.num_params}")
        _check_dims(i, step.grid, step.block)
        _check_uint(step.shared_bytes, 32, f"step {i}'s shared_bytes")
        for a, arg in enumerate(step.args):
            if not isinstance(arg, tuple) or len(arg) != 2:
                raise ValueError(f"step {i}'s argument {a} must be (buffer, byte_offset)")
            b = buffer(arg[0], f"argument {a}")
            if _check_uint(arg[1], 64, f"step {i}'s argument {a} offset") > b.size:
                raise ValueError(f"step {i}'s argument {a} is byte {arg[1]} of buffer {arg[0]}, "
                                 f"which has {b.size}")
    elif isinstance(step, Copy):
        source, destination = buffer(step.source, "source"), buffer(step.destination,
                                                                    "destination")
        for value, what in ((step.bytes, "bytes"), (step.source_offset, "source_offset"),
                            (step.destination_offset, "destination_offset")):
            _check_uint(value, 64, f"step {i}'s {what}")
        if (not _in_bounds(source, step.source_offset, step.bytes)
                or not _in_bounds(destination, step.destination_offset, step.bytes)):
            raise ValueError(f"step {i} copies {step.bytes} bytes out of range")
        if destination.kind not in writable:
            raise ValueError(f"step {i} copies into buffer {step.destination}, a "
                             f"{destination.kind}; only outputs and temporaries are written")
        if (step.source == step.destination and step.bytes
                and step.source_offset < step.destination_offset + step.bytes
                and step.destination_offset < step.source_offset + step.bytes):
            raise ValueError(f"step {i} copies overlapping bytes of buffer {step.source}")
    elif isinstance(step, Fill):
        b = buffer(step.buffer, "buffer")
        if step.pattern_size not in (1, 2, 4, 8):
            raise ValueError(f"step {i}'s pattern_size must be 1, 2, 4 or 8, got "
                             f"{step.pattern_size!r}")
        _check_uint(step.pattern, 8 * step.pattern_size, f"step {i}'s pattern")
        _check_uint(step.bytes, 64, f"step {i}'s bytes")
        _check_uint(step.byte_offset, 64, f"step {i}'s byte_offset")
        if step.bytes % step.pattern_size or step.byte_offset % step.pattern_size:
            raise ValueError(f"step {i}: bytes and byte_offset must be multiples of "
                             f"pattern_size {step.pattern_size}")
        if not _in_bounds(b, step.byte_offset, step.bytes):
            raise ValueError(f"step {i} fills {step.bytes} bytes at byte {step.byte_offset} of "
                             f"buffer {step.buffer}, which has {b.size}")
        if b.kind not in writable:
            raise ValueError(f"step {i} fills buffer {step.buffer}, a {b.kind}; only outputs "
                             "and temporaries are written")
    else:
        raise ValueError(f"step {i} must be a Launch, Copy or Fill, got {step!r}")


def pack(signature: str, module: bytes, module_format: str, num_inputs: int, num_outputs: int,
         buffers: Sequence[Buffer], kernels: Sequence[Kernel], steps: Sequence[Step],
         constants: bytes = b"") -> bytes:
    """The payload of a cuda executable; raises ValueError for anything the runtime's cuda
    driver would refuse."""
    input_sizes, output_sizes = (
        [_byte_size(b) for b in side] for side in _signature_sides(signature))
    if (num_inputs, num_outputs) != (len(input_sizes), len(output_sizes)):
        raise ValueError(f"num_inputs and num_outputs are {num_inputs} and {num_outputs}, the "
                         f"signature {signature!r} has {len(input_sizes)} and "
                         f"{len(output_sizes)}")
    if module_format not in MODULE_FORMATS:
        raise ValueError(f"module_format must be one of {MODULE_FORMATS}, got {module_format!r}")
    module, constants = bytes(module), bytes(constants)
    if not module:
        raise ValueError("the module is empty")
    if module_format == "ptx" and b"\x00" in module:
        raise ValueError("a PTX module must not hold a NUL byte")
    _check_buffers(buffers, input_sizes, output_sizes, constants)
    for k, kernel in enumerate(kernels):
        if not isinstance(kernel, Kernel):
            raise ValueError(f"kernel {k} must be a Kernel, got {kernel!r}")
        name = kernel.name.encode()
        if not 1 <= len(name) <= MAX_KERNEL_NAME or b"\x00" in name:
            raise ValueError(f"kernel {k}'s name must have 1 to {MAX_KERNEL_NAME} bytes and no "
                             f"NUL, got {kernel.name!r}")
        _check_uint(kernel.num_params, 32, f"kernel {k}'s num_params")
    for i, step in enumerate(steps):
        _check_step(i, step, buffers, kernels)

    text = signature.encode()
    data = bytearray(_HEADER.pack(MAGIC, VERSION, MODULE_FORMATS.index(module_format),
                                  num_inputs, num_outputs, len(buffers), len(kernels),
                                  len(steps), 0, len(text), len(module), len(constants)))
    data += text
    _pad(data)
    for b in buffers:
        data += _BUFFER.pack(BUFFER_KINDS.index(b.kind), b.index, b.size, b.offset)
    for kernel in kernels:
        name = kernel.name.encode()
        data += _KERNEL.pack(len(name), kernel.num_params) + name
        _pad(data)
    for step in steps:
        if isinstance(step, Launch):
            data += _STEP.pack(0, len(step.args))
            data += _LAUNCH.pack(step.kernel, *step.grid, *step.block, step.shared_bytes)
            for buffer, offset in step.args:
                data += _ARGUMENT.pack(buffer, 0, offset)
        elif isinstance(step, Copy):
            data += _STEP.pack(1, 0) + _COPY.pack(step.source, step.destination,
                                                  step.source_offset, step.destination_offset,
                                                  step.bytes)
        else:
            data += _STEP.pack(2, 0) + _FILL.pack(step.buffer, step.pattern_size,
                                                  step.byte_offset, step.bytes, step.pattern)
    _pad(data)
    data += module
    _pad(data)
    data += constants
    return bytes(data)


class _Reader:
    def __init__(self, data: bytes):
        self.data, self.position = data, 0

    def take(self, size: int, what: str) -> bytes:
        if size > len(self.data) - self.position:
            raise ValueError(f"truncated cuda payload: reading {what} needs {size} bytes at "
                             f"offset {self.position}, the payload has {len(self.data)}")
        chunk = self.data[self.position:self.position + size]
        self.position += size
        return chunk

    def unpack(self, layout: struct.Struct, what: str) -> tuple:
        return layout.unpack(self.take(layout.size, what))

    def align(self, what: str) -> None:
        self.take(-self.position % 8, what)


def unpack(payload: bytes) -> Payload:
    """Reads a payload back into pack's arguments; raises ValueError for a malformed one
    (the layout only: pack's checks of meaning are the runtime's at load)."""
    r = _Reader(bytes(payload))
    (magic, version, module_format, num_inputs, num_outputs, num_buffers, num_kernels,
     num_steps, _, signature_size, module_size, constants_size) = r.unpack(_HEADER, "the header")
    if magic != MAGIC:
        raise ValueError(f"not a cuda payload: it starts with {magic!r}, not {MAGIC!r}")
    if version != VERSION:
        raise ValueError(f"cuda payload version {version}; this reads version {VERSION}")
    if module_format >= len(MODULE_FORMATS):
        raise ValueError(f"unknown module format {module_format}")
    signature = r.take(signature_size, "the signature").decode()
    r.align("the buffer table")
    buffers = []
    for _ in range(num_buffers):
        kind, index, size, offset = r.unpack(_BUFFER, "a buffer")
        if kind >= len(BUFFER_KINDS):
            raise ValueError(f"unknown buffer kind {kind}")
        buffers.append(Buffer(BUFFER_KINDS[kind], index, size, offset))
    kernels = []
    for _ in range(num_kernels):
        name_size, num_params = r.unpack(_KERNEL, "a kernel")
        kernels.append(Kernel(r.take(name_size, "a kernel name").decode(), num_params))
        r.align("a kernel name's padding")
    steps: list[Step] = []
    for _ in range(num_steps):
        kind, count = r.unpack(_STEP, "a step")
        if kind == 0:
            fields = r.unpack(_LAUNCH, "a launch")
            args = tuple((b, o) for b, _, o in (r.unpack(_ARGUMENT, "an argument")
                                                for _ in range(count)))
            steps.append(Launch(fields[0], tuple(fields[1:4]), tuple(fields[4:7]), fields[7],
                                args))
        elif kind == 1:
            source, destination, source_offset, destination_offset, size = r.unpack(
                _COPY, "a copy")
            steps.append(Copy(source, destination, size, source_offset, destination_offset))
        elif kind == 2:
            buffer, pattern_size, byte_offset, size, pattern = r.unpack(_FILL, "a fill")
            steps.append(Fill(buffer, pattern_size, size, pattern, byte_offset))
        else:
            raise ValueError(f"unknown step kind {kind}")
    r.align("the module")
    module = r.take(module_size, "the module")
    r.align("the constants")
    constants = r.take(constants_size, "the constants")
    if r.position != len(r.data):
        raise ValueError(f"{len(r.data) - r.position} bytes follow the constants")
    return Payload(signature, module, MODULE_FORMATS[module_format], num_inputs, num_outputs,
                   tuple(buffers), tuple(kernels), tuple(steps), constants)
