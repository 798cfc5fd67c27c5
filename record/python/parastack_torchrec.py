# SPDX-License-Identifier: BSD-3-Clause
# parastack_torchrec -- the collective record of a torch.distributed rank, as the MPI layer keeps
# one per communicator (design.md §8.2): per process group, how many collectives the rank has
# entered and left (the ones called from Python, and DDP's gradient all-reduce, one per backward
# after a DDP forward), and the call it is in now with its op, sizes, peer and Python call site.
# The monitor reads it from outside at hang time (monitor/sample/record/torchrecord.c): a rank behind the
# others of a group, or on another op at the same sequence number, is the culprit.
#
# The record is a memfd mapped into the rank, "/memfd:parastack-torch-record" in its maps, laid
# out as record/torch_format.h says (fixed size, little endian; "gen" odd while a write is in
# progress). Nothing touches the file system; a forked child (a data loader worker) stops
# writing. Any failure here turns the record off and leaves the call to torch as it was.
import mmap
import os
import struct
import sys
import threading

MAGIC = b"PSTORCH1"
VERSION = 1
MAX_GROUPS = 16
MAX_LISTED = 32
HEADER = struct.Struct("<8sIIIiiIQiIQ24siIQ64siIQI12x")
GROUP = struct.Struct("<II32iQQQQ16sI4x")
GROUPS_AT = HEADER.size
SIZE = HEADER.size + MAX_GROUPS * GROUP.size
COUNT, COUNT32 = struct.Struct("<Q"), struct.Struct("<I")
COUNTS_AT = 136  # a group's four counts (torch_format.h's coll_entered)
IN_OP_AT = 176   # the header's in_op
KIND_NONE, KIND_COLL, KIND_DDP, KIND_P2P = 0, 1, 2, 3

COLLECTIVES = ("all_reduce", "broadcast", "reduce", "all_gather", "all_gather_into_tensor",
               "_all_gather_base", "gather", "scatter", "reduce_scatter", "reduce_scatter_tensor",
               "_reduce_scatter_base", "all_to_all", "all_to_all_single", "barrier",
               "all_gather_object", "broadcast_object_list", "gather_object",
               "scatter_object_list", "monitored_barrier")
POINT_TO_POINT = {"send": "dst", "recv": "src", "isend": "dst", "irecv": "src"}


class Group(object):
    __slots__ = ("slot", "ranks", "member", "backend", "counts")

    def __init__(self, slot, ranks, member, backend):
        self.slot, self.ranks, self.member, self.backend = slot, ranks, member, backend
        self.counts = [0, 0, 0, 0]  # collectives entered, left; DDP all-reduces entered, left


class Record(object):
    def __init__(self, rank, world):
        fd = os.memfd_create("parastack-torch-record", getattr(os, "MFD_CLOEXEC", 1))
        try:
            os.ftruncate(fd, SIZE)
            self.mm = mmap.mmap(fd, SIZE)
        finally:
            os.close(fd)
        self.rank, self.world = rank, world
        self.gen = 0
        self.ops = 0
        self.groups = {}   # id(process group object) -> Group; None -> the default group
        self.ngroups = 0
        self.cur = (-1, KIND_NONE, 0, b"", -1, 0, 0, b"")
        self.prev = (-1, KIND_NONE, 0)
        self.in_op = 0
        self.write_header()

    def write_header(self):
        g, kind, seq, op, peer, line, numel, path = self.cur
        HEADER.pack_into(self.mm, 0, MAGIC, VERSION, SIZE, self.gen, self.rank, self.world,
                         self.ngroups, self.ops, g, kind, seq, op, peer, line, numel, path,
                         self.prev[0], self.prev[1], self.prev[2], self.in_op)

    def write_group(self, grp):
        listed = list(grp.ranks[:MAX_LISTED]) + [-1] * (MAX_LISTED - min(len(grp.ranks), MAX_LISTED))
        GROUP.pack_into(self.mm, GROUPS_AT + grp.slot * GROUP.size, grp.slot, len(grp.ranks), *listed,
                        *grp.counts, grp.backend, grp.member)

    def begin(self):
        self.gen += 1
        COUNT32.pack_into(self.mm, 16, self.gen)

    def end(self):
        self.gen += 1
        COUNT32.pack_into(self.mm, 16, self.gen)

    def add_group(self, key, ranks, member, backend):
        if self.ngroups >= MAX_GROUPS:
            return None
        grp = Group(self.ngroups, ranks, member, backend.encode()[:16])
        self.groups[key] = grp
        self.ngroups += 1
        self.begin()
        self.write_group(grp)
        self.write_header()
        self.end()
        return grp

    def enter(self, grp, kind, op, peer, numel, site):
        # A group's collectives and DDP's all-reduces are counted; point-to-point calls are not
        # matched by number (seq 0).
        seq = 0
        if kind != KIND_P2P:
            c = 0 if kind == KIND_COLL else 2
            grp.counts[c] += 1
            seq = grp.counts[c]
        self.ops += 1
        if self.cur[0] >= 0 and self.cur[1] != KIND_P2P:
            self.prev = (self.cur[0], self.cur[1], self.cur[2])
        self.cur = (grp.slot, kind, seq, op.encode()[:24], peer, site[1], numel,
                    site[0].encode("utf-8", "replace")[-64:])
        self.in_op = 1
        self.begin()
        if kind != KIND_P2P:
            COUNT.pack_into(self.mm, GROUPS_AT + grp.slot * GROUP.size + COUNTS_AT + 8 * c, grp.counts[c])
        self.write_header()
        self.end()

    def leave(self, grp, kind):
        # Only what changed: the group's count of calls left and the header's in_op.
        self.begin()
        if kind != KIND_P2P:
            c = 1 if kind == KIND_COLL else 3
            grp.counts[c] += 1
            COUNT.pack_into(self.mm, GROUPS_AT + grp.slot * GROUP.size + COUNTS_AT + 8 * c, grp.counts[c])
        self.in_op = 0
        COUNT32.pack_into(self.mm, IN_OP_AT, 0)
        self.end()


record = None
lock = threading.Lock()
busy = threading.local()   # a collective inside a collective (all_gather_object) counts once
torch_dirs = ()
ddp_pending = None


def turn_off(*_):
    global record
    record = None


def call_site():
    """The innermost frame outside torch and this file: the trainer's own line."""
    f = sys._getframe(1)
    for _ in range(64):
        if f is None:
            break
        name = f.f_code.co_filename
        if not name.startswith(torch_dirs) and name != __file__:
            return name, f.f_lineno
        f = f.f_back
    return "?", 0


def numel_of(args, kwargs):
    for v in list(args[:2]) + list(kwargs.values()):
        try:
            if hasattr(v, "numel"):
                return int(v.numel())
            if isinstance(v, (list, tuple)) and v and hasattr(v[0], "numel"):
                return int(sum(t.numel() for t in v))
        except Exception:
            return 0
    return 0


def group_of(c10d, group):
    if record is None:
        return None
    if group is None or group is getattr(c10d.GroupMember, "WORLD", None):
        return record.groups.get(None)
    return record.groups.get(id(group))


def run_recorded(grp, kind, op, peer, numel, fn, args, kwargs):
    """fn(*args, **kwargs) between the record's enter and leave: a failure of the record turns
    the record off, never the call."""
    try:
        with lock:
            record.enter(grp, kind, op, peer, numel, call_site())
    except Exception:
        turn_off()
        return fn(*args, **kwargs)
    busy.on = True
    try:
        return fn(*args, **kwargs)
    finally:
        busy.on = False
        try:
            with lock:
                if record is not None:
                    record.leave(grp, kind)
        except Exception:
            turn_off()


def recorded(c10d, name, fn, kind, peer_name):
    import functools
    import inspect
    params = list(inspect.signature(fn).parameters)
    gi = params.index("group") if "group" in params else -1
    pi = params.index(peer_name) if peer_name in params else -1

    @functools.wraps(fn)
    def wrapper(*args, **kwargs):
        if record is None or getattr(busy, "on", False):
            return fn(*args, **kwargs)
        try:
            group = kwargs.get("group", args[gi] if 0 <= gi < len(args) else None)
            grp = group_of(c10d, group)
            peer = kwargs.get(peer_name, args[pi] if 0 <= pi < len(args) else -1) if peer_name else -1
            if grp is None or not grp.member:
                return fn(*args, **kwargs)
            peer = -1 if peer is None else int(peer)
            numel = numel_of(args, kwargs)
        except Exception:
            turn_off()
            return fn(*args, **kwargs)
        return run_recorded(grp, kind, name, peer, numel, fn, args, kwargs)
    wrapper.__parastack__ = True
    return wrapper


def group_ranks(c10d, ranks):
    if ranks is not None:
        return sorted(int(r) for r in ranks)
    return list(range(c10d.get_world_size()))


def wrap_init(c10d, fn):
    import functools

    @functools.wraps(fn)
    def init_process_group(*args, **kwargs):
        global record
        out = fn(*args, **kwargs)
        try:
            if record is None:
                record = Record(c10d.get_rank(), c10d.get_world_size())
                os.register_at_fork(after_in_child=turn_off)
                record.add_group(None, list(range(record.world)), 1, str(c10d.get_backend()))
        except Exception:
            turn_off()
        return out
    init_process_group.__parastack__ = True
    return init_process_group


def wrap_new_group(c10d, fn):
    import functools
    import inspect
    params = list(inspect.signature(fn).parameters)

    @functools.wraps(fn)
    def new_group(*args, **kwargs):
        pg = fn(*args, **kwargs)
        try:
            if record is not None:
                ranks = kwargs.get("ranks", args[params.index("ranks")] if "ranks" in params and
                                   params.index("ranks") < len(args) else None)
                ranks = group_ranks(c10d, ranks)
                member = record.rank in ranks
                backend = str(c10d.get_backend(pg)) if member else "-"
                with lock:
                    # Every rank calls new_group, member or not, in one order: the slots agree.
                    record.add_group(id(pg) if member else ("not a member", record.ngroups), ranks,
                                     int(member), backend)
        except Exception:
            turn_off()
        return pg
    new_group.__parastack__ = True
    return new_group


def patch_c10d(c10d, namespaces):
    for name in COLLECTIVES + tuple(POINT_TO_POINT) + ("init_process_group", "new_group"):
        fn = getattr(c10d, name, None)
        if fn is None or getattr(fn, "__parastack__", False):
            continue
        if name == "init_process_group":
            w = wrap_init(c10d, fn)
        elif name == "new_group":
            w = wrap_new_group(c10d, fn)
        else:
            kind = KIND_P2P if name in POINT_TO_POINT else KIND_COLL
            w = recorded(c10d, name, fn, kind, POINT_TO_POINT.get(name))
        for ns in namespaces:
            if getattr(ns, name, None) is fn:
                setattr(ns, name, w)


def patch_ddp(ddp_module, autograd, c10d):
    """DDP's gradient all-reduce runs in C++ under backward: counted as one op per backward that
    follows a DDP forward taken with gradients (what DDP's reducer then all-reduces)."""
    import functools
    import torch
    is_grad_enabled = torch.is_grad_enabled
    cls = ddp_module.DistributedDataParallel
    forward = cls.forward
    backward = autograd.backward
    if getattr(forward, "__parastack__", False):
        return

    @functools.wraps(forward)
    def ddp_forward(self, *args, **kwargs):
        global ddp_pending
        out = forward(self, *args, **kwargs)
        try:
            if record is not None and is_grad_enabled() and getattr(self, "require_backward_grad_sync", True):
                ddp_pending = group_of(c10d, getattr(self, "process_group", None))
        except Exception:
            turn_off()
        return out

    @functools.wraps(backward)
    def ddp_backward(*args, **kwargs):
        global ddp_pending
        grp, ddp_pending = ddp_pending, None
        if record is None or grp is None or not grp.member:
            return backward(*args, **kwargs)
        return run_recorded(grp, KIND_DDP, "DDP gradient all-reduce", -1, 0, backward, args, kwargs)
    ddp_forward.__parastack__ = True
    ddp_backward.__parastack__ = True
    cls.forward = ddp_forward
    autograd.backward = ddp_backward


def patch_loaded():
    global torch_dirs
    c10d = sys.modules.get("torch.distributed.distributed_c10d")
    dist = sys.modules.get("torch.distributed")
    torch = sys.modules.get("torch")
    if c10d is None or torch is None or not hasattr(c10d, "all_reduce"):
        return False
    torch_dirs = (os.path.dirname(torch.__file__) + os.sep, os.path.dirname(os.__file__) + os.sep)
    patch_c10d(c10d, [c10d] + ([dist] if dist is not None else []))
    ddp_module = sys.modules.get("torch.nn.parallel.distributed")
    autograd = sys.modules.get("torch.autograd")
    if ddp_module is not None and autograd is not None:
        patch_ddp(ddp_module, autograd, c10d)
    return True


class Finder(object):
    """Patches torch.distributed once torch has imported it: sitecustomize runs first."""
    watched = ("torch", "torch.distributed", "torch.nn.parallel.distributed")

    def find_spec(self, name, path=None, target=None):
        if name not in self.watched:
            return None
        for finder in sys.meta_path:
            if finder is self or not hasattr(finder, "find_spec"):
                continue
            spec = finder.find_spec(name, path, target)
            if spec is not None and spec.loader is not None and hasattr(spec.loader, "exec_module"):
                spec.loader = Loader(spec.loader)
                return spec
            if spec is not None:
                return spec
        return None


class Loader(object):
    def __init__(self, inner):
        self.inner = inner

    def create_module(self, spec):
        return self.inner.create_module(spec)

    def exec_module(self, module):
        self.inner.exec_module(module)
        try:
            patch_loaded()
        except Exception:
            turn_off()

    def __getattr__(self, name):
        return getattr(self.inner, name)


def install():
    if not patch_loaded():
        sys.meta_path.insert(0, Finder())
