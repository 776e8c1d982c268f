# ---
# jupyter:
#   kernelspec:
#     display_name: Python 3
#     language: python
#     name: python3
#   language_info:
#     name: python
#     pygments_lexer: ipython3
# ---

# %% [markdown]
# # Chapter 10: Checkpoints: pickle, safety, atomic writes, exact resume
#
# A long run must survive a crash, a pre-empted machine or a Ctrl-C, and continue *exactly*
# where it stopped. That takes a file that holds everything the run depends on, is written so
# that a crash never leaves half of it, and is loaded without trusting it blindly.
#
# `mg.save` / `mg.load` (and the aliases `mg.save_checkpoint` / `mg.load_checkpoint`) are built on
# Python's `pickle`, like `torch.save`. This chapter takes the pieces apart: what pickle does, why
# loading a pickle can run any code, how a restricted unpickler stops that, how to write a file
# atomically, and what a checkpoint must hold for a bit-exact resume.
#
# Every file here goes into a temporary folder that is deleted at the end.

# %%
import sys

sys.path.insert(0, "..")
from _course import load, one_blas_thread

one_blas_thread()  # small matrices: one BLAS thread (why: _course.py)

ex = load()  # your exercises.py (the reference solutions when MINIGENESIS_SOLUTIONS=1)

import io
import pickle
import pickletools
import tempfile
from pathlib import Path

import numpy as np

import minigenesis as mg

workdir = tempfile.TemporaryDirectory()
tmp = Path(workdir.name)

# %% [markdown]
# ## What pickle writes
#
# `pickle.dumps` turns an object into a small *program* for a stack machine; `pickle.loads` runs
# that program. Most opcodes push numbers, strings, lists and dicts. `pickletools.dis` shows it:

# %%
data = pickle.dumps({"step": 3, "lr": [0.1, 0.01]})
print(len(data), "bytes")
pickletools.dis(data)

# %% [markdown]
# Objects that are not plain data are written as **"call this function with these arguments"**:
# the object's `__reduce__` returns `(callable, args)`, pickle stores the callable by *name*
# (`module.qualname`, opcode `STACK_GLOBAL`), and loading imports that name and calls it. This is
# how a NumPy array comes back. The unpickler looks each name up with its method
# `find_class(module, name)`; a subclass that prints those calls shows them:


# %%
class SpyUnpickler(pickle.Unpickler):
    def find_class(self, module, name):
        print(f"find_class({module!r}, {name!r})")
        return super().find_class(module, name)


SpyUnpickler(io.BytesIO(pickle.dumps(np.arange(3, dtype=np.float32)))).load()

# %% [markdown]
# ## Why unpickling is dangerous
#
# Nothing restricts *which* callable a pickle names. Here is a class whose `__reduce__` says
# "call `print` with this message". A real attack would name `os.system` or `builtins.exec`
# instead; this one is harmless, but it shows the mechanism: **`pickle.load` runs the code while
# loading**, before you ever look at the result.


# %%
class NotAWeight:
    def __reduce__(self):
        return (print, ("!!! this line was printed by pickle.loads: it could have been any code",))


payload = pickle.dumps({"weight": [0.5, -1.0], "bias": NotAWeight()})
result = pickle.loads(payload)  # prints!
print("loaded:", result)  # "bias" holds what print returned

# %% [markdown]
# So a checkpoint downloaded from the internet is a program. PyTorch reacted by making
# `torch.load(..., weights_only=True)` the default (since 2.6); minigenesis does the same:
# `mg.load(path)` is safe unless you pass `weights_only=False` for a file you trust.
#
# The defence is to intercept the one place where names become objects: `Unpickler.find_class
# (module, name)`. A restricted unpickler overrides it and only resolves names on an
# **allow-list** (containers, NumPy's array rebuilders, and in minigenesis its tensor
# rebuilders), so a pickle can rebuild data but never call anything else.
#
# **Exercise 10.1**: write `RestrictedUnpickler.find_class` and `safe_loads`.

# %%
state = {"weight": np.ones((2, 2), dtype=np.float32), "step": 7, "names": ("fc1", "fc2")}
print("plain data:", ex.safe_loads(pickle.dumps(state)))
try:
    ex.safe_loads(payload)
except pickle.UnpicklingError as err:
    print("refused:", err)

# %% [markdown]
# `mg.load` refuses the same file, before anything runs, and says what to do if you trust it:

# %%
mg.save({"weight": [0.5, -1.0], "bias": NotAWeight()}, tmp / "suspicious.mgck")
try:
    mg.load(tmp / "suspicious.mgck")
except pickle.UnpicklingError as err:  # serialization.UnsafeCheckpointError, a subclass
    print(type(err).__name__, ":", err)

# %% [markdown]
# ### An allow-list of names is not enough
#
# The allow-list of exercise 10.1 holds `numpy.dtype` and NumPy's array rebuilders, because a
# pickled array needs them. But `find_class` guards one opcode, `STACK_GLOBAL`; every other
# opcode runs unchecked, and one of them, `BUILD`, hands the next value from the file to the new
# object's `__setstate__`. Here is how a dtype pickles: a call, then a state tuple for `BUILD`.

# %%
for dt in (np.dtype(np.float64), np.dtype(object)):
    print(f"{str(dt):8}", dt.__reduce__())

# %% [markdown]
# The last number of the state is the dtype's flags: 63 says "each element is a reference to a
# Python object" (count references, never read it as plain bytes). NumPy believes whatever state
# it is given. So a file can ask for an object dtype whose flags are 0, using only allowed
# names. Twenty opcodes, assembled by hand:


# %%
def text(s):  # SHORT_BINUNICODE: one length byte, then UTF-8
    return b"\x8c" + bytes([len(s.encode())]) + s.encode()


dtype_call = text("numpy") + text("dtype") + b"\x93"  # STACK_GLOBAL numpy.dtype: allowed
args = text("O8") + b"\x89\x88\x87R"  # ("O8", False, True), REDUCE: dtype("O8", False, True)
# the state (3, "|", None, None, None, -1, -1, 0): an object dtype's, but with flags 0
state = b"(K\x03" + text("|") + b"NNNJ\xff\xff\xff\xffJ\xff\xff\xff\xffK\x00t"
forged = b"\x80\x05" + dtype_call + args + state + b"b."  # PROTO 5 ... BUILD, STOP
pickletools.dis(forged)
try:
    d = ex.safe_loads(forged)  # passes the allow-list of exercise 10.1
    print(f"kind {d.kind!r} (Python objects), hasobject {d.hasobject}, flags {d.flags}")
except pickle.UnpicklingError as err:  # an allow-list without numpy.dtype: no arrays either
    print("refused:", err)

# %% [markdown]
# We stop here, but an attacker does not: the other allowed names (`_reconstruct` with
# `ndarray.__setstate__`, `scalar`) copy raw bytes *from the file* into an array of that dtype.
# Eight bytes of the file become a `PyObject*`, a memory address. Reading it crashes the process
# inside `pickle.load`; an address that points at bytes shaped like a Python object makes a fake
# object, and with address randomisation off, a 100-byte file calls `os.system`. Every name on
# the list was harmless on its own; the danger is in the *values* that reach them. (The same
# unpickler also trusts the file's numbers: one `LONG_BINPUT` with index 2**27 makes the C
# unpickler allocate a 2 GB memo, from a 53-byte file.)
#
# So `mg.load` with `weights_only=True` does not use `pickle.Unpickler`. It runs its own small
# interpreter (`minigenesis/serialization/restricted.py`), an allow-list at the level of opcodes:
#
# - it implements only the ~40 opcodes plain data needs (containers, numbers, strings, bytes, the
#   memo, out-of-band buffers) and refuses every other one (`BUILD`, `NEWOBJ`, `INST`, `OBJ`,
#   `EXT*` ...) by name;
# - `REDUCE` calls only a dozen functions, each after checking its arguments' exact types. An
#   array comes only from `_rebuild_array(raw bytes, "<f4", shape, fortran)`: the dtype is a
#   short *string* for a numeric type, never a dtype object from the file, and the shape's size
#   times the item size must equal the number of bytes. Bytes can then only ever be numbers;
# - it bounds what a file can cost: each length field is compared with the bytes left before
#   anything is allocated, the memo is a dict (an index is a key, never a size), containers nest
#   at most 100 deep, and copies are charged against the file's size.
#
# The checksum does not help here: it catches accidents, and an attacker simply writes a valid
# one. Wrapped in a well-formed checkpoint, the forged bytes are refused at the first disallowed
# step, and NumPy never sees them:


# %%
class RawBytes:
    """A stand-in 'pickler' for the checkpoint writer: it writes our bytes as they are."""

    def __init__(self, stream, buffer_callback):
        self.stream = stream

    def dump(self, obj):
        self.stream.write(forged)


with open(tmp / "forged.mgck", "wb") as f:
    mg.serialization.format.write_checkpoint(f, None, RawBytes)  # a valid header and CRC
try:
    mg.load(tmp / "forged.mgck")
except mg.CheckpointError as err:
    print(type(err).__name__, ":", err)

# %% [markdown]
# The interpreter is plain Python, a few microseconds per opcode, and that is fast enough because
# a checkpoint's pickle is small: the arrays travel outside it, as raw buffers. For a 10-million
# parameter model with its Adam state (900 tensors, a 42 KB pickle of 25,000 opcodes) it costs
# about 30 ms per load, next to the time it takes to read and checksum 113 MB.
#
# What `weights_only=True` promises, then: loading runs no code but the rebuilding of tensors,
# numeric arrays and scalars, builtin containers and `OrderedDict`, and a file cannot make it use
# much more memory or time than the file's size warrants. Anything else (your own classes, NumPy
# arrays of strings or objects) needs `weights_only=False`, which is the normal unpickler: use it
# only for files you trust as much as code you would run.

# %% [markdown]
# ## Atomic writes
#
# `open(path, "wb")` truncates the old file *first*. If the program dies half-way through the
# write (a crash, a full disk, an object that fails to pickle), the last good checkpoint is gone
# and what is left is garbage:

# %%
path = tmp / "naive.pkl"
with open(path, "wb") as f:
    pickle.dump({"step": 1, "weights": [1.0, 2.0]}, f)  # the last good checkpoint

unpicklable = {"step": 2, "big": b"x" * 2**20, "oops": lambda: 0}  # lambdas cannot be pickled
try:
    with open(path, "wb") as f:
        pickle.dump(unpicklable, f)
except Exception as err:
    print("save failed:", type(err).__name__, err)
print("file size now:", path.stat().st_size, "bytes")
try:
    pickle.loads(path.read_bytes())
except Exception as err:
    print("and the checkpoint is lost:", type(err).__name__, err)

# %% [markdown]
# The fix is a rename. Write the new checkpoint to a temporary file **in the same folder**, flush
# it and `os.fsync` it (so its bytes are on the disk, not just in the OS cache), then
# `os.replace(tmp, path)`. On one file system a rename is atomic: anyone opening `path` sees
# either the whole old file or the whole new one. On failure, delete the temporary file.
#
# **Exercise 10.2**: write `atomic_save(obj, path)`.

# %%
path = tmp / "atomic.pkl"
ex.atomic_save({"step": 1, "weights": [1.0, 2.0]}, path)
try:
    ex.atomic_save(unpicklable, path)
except Exception as err:
    print("save failed:", type(err).__name__)
print("still loads:", pickle.loads(path.read_bytes()))
print("files in the folder:", sorted(p.name for p in tmp.iterdir()))

# %% [markdown]
# ## Checksums: noticing damage
#
# A file can also be damaged *after* it was written: a copy cut short, a flipped bit on a bad
# disk. Unpickling damaged bytes may fail with a confusing error, or worse, succeed with wrong
# numbers. A checksum stored next to the payload turns both into one clear error.
#
# **Exercise 10.3**: write `add_checksum(payload)` (magic bytes, length, SHA-256 digest, payload)
# and `check_checksum(blob)`.

# %%
blob = ex.add_checksum(pickle.dumps({"w": [1.0, 2.0, 3.0]}))
print("intact:", pickle.loads(ex.check_checksum(blob)))
flipped = bytearray(blob)
flipped[-10] ^= 0x01  # one bit
for name, damaged in [("one bit flipped", bytes(flipped)), ("cut short", blob[:-3])]:
    try:
        ex.check_checksum(damaged)
    except ValueError as err:
        print(f"{name}: {err}")

# %% [markdown]
# The minigenesis file format does the same with a CRC32 (`minigenesis/serialization/format.py`):
# a header with magic bytes and a version, the array bytes, the pickle, and a checksum that is
# compared *before* anything is unpickled.

# %%
mg.save({"w": mg.randn(4, 4)}, tmp / "good.mgck")
raw = bytearray((tmp / "good.mgck").read_bytes())
raw[40] ^= 0x01
(tmp / "bad.mgck").write_bytes(bytes(raw))
try:
    mg.load(tmp / "bad.mgck")
except mg.CheckpointError as err:
    print("CheckpointError:", err)

# %% [markdown]
# ## Exact resume
#
# To continue a run *bit for bit*, a checkpoint needs everything that influences the next
# step:
#
# | what | why |
# |---|---|
# | `model.state_dict()` | the weights (and buffers such as BatchNorm's running statistics) |
# | `optimizer.state_dict()` | Adam's moments and step counts, momentum buffers, the current lr |
# | `scheduler.state_dict()` | where the schedule is (`last_epoch`) |
# | `scaler.state_dict()` | the loss scale and its growth counter (mixed precision) |
# | `mg.get_rng_state()` | the random generator: dropout masks, shuffling, augmentation |
# | the step / epoch counters | where the loop is |
#
# **Exercise 10.4**: write `save_training_state` and `load_training_state`. The cell trains 8
# steps straight, then 4 steps, saves, rebuilds everything from scratch (with a different seed,
# as a new process would), loads, and trains 4 more: the losses must be identical.


# %%
def build(seed):
    mg.manual_seed(seed)
    model = mg.nn.Sequential(
        mg.nn.Linear(4, 32), mg.nn.ReLU(), mg.nn.Dropout(0.2), mg.nn.Linear(32, 1)
    )
    optimizer = mg.optim.AdamW(model.parameters(), lr=1e-2)
    scheduler = mg.optim.get_cosine_schedule_with_warmup(optimizer, 2, 8)
    return model, optimizer, scheduler


def train(model, optimizer, scheduler, steps):
    losses = []
    for _ in range(steps):
        x = mg.randn(16, 4)  # the "data loader" and dropout both draw from the RNG
        loss = ((model(x) - x.sum(dim=1, keepdim=True)) ** 2).mean()
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
        scheduler.step()
        losses.append(loss.item())
    return losses


straight = train(*build(seed=0), steps=8)

model, optimizer, scheduler = build(seed=0)
first = train(model, optimizer, scheduler, steps=4)
ex.save_training_state(tmp / "run.ckpt", model, optimizer, scheduler, step=4)

model, optimizer, scheduler = build(seed=123)  # a fresh process
step = ex.load_training_state(tmp / "run.ckpt", model, optimizer, scheduler)
resumed = first + train(model, optimizer, scheduler, steps=4)
for i, (a, b) in enumerate(zip(straight, resumed)):
    print(f"step {i}: straight {a:.6f}   resumed {b:.6f}   {'same' if a == b else 'DIFFERENT'}")

# %% [markdown]
# Leave one piece out and the run silently changes. Without the RNG state, the resumed run draws
# different data and dropout masks:

# %%
print("your checkpoint holds:", sorted(mg.load(tmp / "run.ckpt")))

model, optimizer, scheduler = build(seed=0)
first = train(model, optimizer, scheduler, steps=4)
parts = {"model": model, "optimizer": optimizer, "scheduler": scheduler}
mg.save({key: obj.state_dict() for key, obj in parts.items()}, tmp / "no_rng.ckpt")  # no RNG

model, optimizer, scheduler = build(seed=123)
state = mg.load(tmp / "no_rng.ckpt")
model.load_state_dict(state["model"])
optimizer.load_state_dict(state["optimizer"])
scheduler.load_state_dict(state["scheduler"])
no_rng = first + train(model, optimizer, scheduler, steps=4)
print("identical without the RNG state?", no_rng == straight)

workdir.cleanup()

# %% [markdown]
# ## Summary
#
# - pickle stores objects as calls to named functions; `pickle.load` makes those calls, so
#   loading an untrusted pickle can run any code.
# - A restricted unpickler resolves only allow-listed names in `find_class`. That is not enough:
#   the other opcodes (`BUILD`) pass values from the file to allowed objects, and a dtype from the
#   file can make NumPy read bytes as pointers. `mg.load` (default `weights_only=True`) therefore
#   interprets the pickle itself, allowing opcodes, callables and argument types, and bounding
#   what a file can make it allocate.
# - Write checkpoints atomically: temporary file in the same folder, fsync, `os.replace`.
# - A checksum turns a damaged file into a clear error instead of wrong numbers.
# - Exact resume needs the model, optimizer, scheduler, scaler and RNG states and the counters.


# %% [markdown]
# ## Self-check
#
# Answer these without running anything: the point is to find out what you would predict, and why.
# Then write your letters in `quiz()` of `exercises.py` (**Exercise 10.5**), for example `{"q1":
# "b", "q2": "d", ...}`, and check them with `python -m pytest lessons/10_checkpoints -k
# self_check`: each wrong answer gets a hint that points back into the lesson.
#
# **q1.** Why is `pickle.load` on a file from the internet dangerous?
#
# - (a) a damaged file can crash the interpreter
# - (b) a pickle can name any importable callable and its arguments (`os.system`, "rm -rf ~"), and
#   loading calls it
# - (c) pickle files can be too large for memory
# - (d) pickle is not portable between Python versions
#
# **q2.** An atomic save writes to a temporary file and then calls `os.replace(tmp, path)`. Why must
# the temporary file be in the same directory as `path`, not in `/tmp`?
#
# - (a) `os.replace` is atomic only within one filesystem, and `/tmp` is often another one
# - (b) other users can read files in `/tmp`
# - (c) `os.replace` only accepts relative paths
# - (d) `/tmp` is cleared at every reboot
#
# **q3.** A run is resumed from a checkpoint holding the model, optimizer and scheduler states but
# not the random generators' states. What differs from the run that never stopped?
#
# - (a) nothing: the weights hold everything that matters
# - (b) the data order and the dropout masks after the resume, so the numbers diverge from the
#   uninterrupted run
# - (c) the optimizer restarts its moments from zero
# - (d) the learning-rate schedule starts over
#
# **q4.** What does a SHA-256 checksum stored in the checkpoint's header protect against?
#
# - (a) the code execution of a malicious pickle
# - (b) nothing that a file size check would not catch
# - (c) accidental damage (a flipped bit, a truncated file): not someone who can rewrite the
#   checksum along with the file
# - (d) any tampering, since SHA-256 cannot be forged
