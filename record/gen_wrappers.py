#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""gen_wrappers.py API OUT_DIR — the recording layer's regular part, from record/mpi.api.

Writes OUT_DIR/psrec_funcs.h (every recorded function: its enum name, its MPI name and its
kind, read by the layer and by the monitor) and OUT_DIR/record_wrappers.c (a compilation unit of
the layer, calling the helpers record/layer.h declares): a C wrapper per function of a regular role,
and for Open MPI, whose Fortran bindings call PMPI_* past the C wrappers, a Fortran twin of every
function in the symbol forms compilers emit (mpi_x_, mpi_x__, mpi_x, MPI_X) and `use mpi_f08`'s
mpi_x_f08_. MPICH's Fortran bindings call the C MPI_* functions: its C wrappers see them.
Run by make; the output is not committed."""
import os
import re
import sys

# Roles whose C wrapper is written by hand in layer.c and requests.c (request bookkeeping, start, end).
C_BY_HAND = {"wait", "waitall", "waitany", "waitsome", "hand"}
# The kind of each hand-written function (what the monitor makes of a rank in it).
HAND_KIND = {"Start": "req", "Startall": "req", "Request_free": "req", "Test": "test",
             "Testall": "test", "Testany": "test", "Testsome": "test", "Comm_free": "call",
             "Init": "init", "Init_thread": "init", "Finalize": "finalize"}
# Fortran twins written by hand (their Fortran signatures are not the C ones).
F_BY_HAND = {"Init", "Init_thread", "Finalize"}
# Blocking point-to-point roles: their sends and receives are counted (record/channels.c).
P2P_BLOCKING = {"send", "recv", "probe", "sendrecv"}
ROLES = {"send", "recv", "probe", "mrecv", "sendrecv", "isend", "irecv", "imrecv", "init_send",
         "init_recv", "coll", "icoll", "ctor", "call", "icall", "wait", "waitall", "waitany",
         "waitsome", "hand"}


class Param:
    def __init__(self, text):
        text = text.strip()
        m = re.match(r"^(.*?)([A-Za-z_][A-Za-z0-9_]*)\s*(\[\])?$", text)
        if not m:
            raise ValueError("cannot read parameter %r" % text)
        self.text = text
        self.ctype = (m.group(1) + ("*" if m.group(3) else "")).strip()
        self.name = m.group(2)
        self.is_char = re.match(r"^(const\s+)?char\s*\*$", self.ctype) is not None


class Func:
    def __init__(self, name, role, nbytes, params, lineno):
        self.name, self.role, self.bytes, self.lineno = name, role, nbytes, lineno
        self.params = [] if params.strip() == "void" else [Param(p) for p in params.split(",")]
        self.names = [p.name for p in self.params]
        if role not in ROLES:
            raise ValueError("line %d: unknown role %r" % (lineno, role))
        self.kind = HAND_KIND.get(name, role if role != "hand" else "call")
        self.enum = name.upper()

    def param(self, *names):
        for n in names:
            if n in self.names:
                return n
        return None

    def first_of_type(self, ctype):
        for p in self.params:
            if p.ctype == ctype:
                return p.name
        return None

    def comm(self):
        """The communicator the call is over: its first one passed by value."""
        return self.first_of_type("MPI_Comm")

    def new_comm(self):
        """The communicator a constructor makes."""
        return self.first_of_type("MPI_Comm *")


def read_api(path):
    funcs = []
    with open(path) as f:
        for lineno, line in enumerate(f, 1):
            line = line.split("#", 1)[0].strip()
            if not line:
                continue
            fields = [x.strip() for x in line.split("|")]
            if len(fields) != 4:
                raise ValueError("%s:%d: want NAME | ROLE | BYTES | PARAMETERS" % (path, lineno))
            funcs.append(Func(fields[0], fields[1], fields[2], fields[3], lineno))
    names = [f.name for f in funcs]
    if len(set(names)) != len(names):
        raise ValueError("%s: a function is listed twice" % path)
    return funcs


def peer_expr(f, deref=""):
    if f.role in ("send", "isend", "init_send"):
        return deref + "dest"
    if f.role in ("recv", "probe", "sendrecv", "irecv", "init_recv"):
        return deref + "source"
    return "PSREC_NO_PEER"


def tag_expr(f, deref=""):
    t = f.param("recvtag", "tag") if f.role in ("send", "recv", "probe", "sendrecv", "isend",
                                                 "irecv", "init_send", "init_recv") else None
    return deref + t if t else "0"


def bytes_expr(f, fortran):
    """The signature's bytes: C expressions on the wrapper's parameters."""
    b = f.bytes
    conv = (lambda t: "PMPI_Type_f2c(*%s)" % t) if fortran else (lambda t: t)
    deref = "*" if fortran else ""
    if b == "-":
        return "0"
    if b == "?":
        return "-1"
    if b.startswith("sum:"):
        counts, t = b[4:].split(",")
        comm = ("PMPI_Comm_f2c(*%s)" % f.comm()) if fortran else f.comm()
        return "counts_bytes(%s, comm_size_of(%s), %s)" % (counts, comm, conv(t))
    count, t = b.split(",")
    for n in (count, t):
        if n not in f.names:
            raise ValueError("line %d: %s: no parameter %r" % (f.lineno, f.name, n))
    return "type_bytes(%s%s, %s)" % (deref, count, conv(t))


def call_args(f, fortran):
    d = "*" if fortran else ""
    comm = f.comm()
    comm_e = ("PMPI_Comm_f2c(*%s)" % comm if fortran else comm) if comm else "MPI_COMM_NULL"
    root = f.param("root")
    root_e = (d + root) if root and f.role in ("coll", "icoll") else "-1"
    coll = "1" if f.role in ("coll", "icoll", "ctor") else "0"
    # MPI_Sendrecv's send part, counted by the layer's point-to-point counters.
    speer, stag = ((d + "dest", d + f.param("sendtag")) if f.role == "sendrecv" else ("PSREC_NO_PEER", "0"))
    return "{ PSREC_%s, %s, %s, %s, %s, %s, %s, %s, %s, %s }" % (
        f.enum, comm_e, peer_expr(f, d), tag_expr(f, d), root_e, coll, bytes_expr(f, fortran),
        "caller" if fortran else "CALLER", speer, stag)


# ---- C ------------------------------------------------------------------------------------------
def c_wrapper(f):
    sig = ", ".join(p.text for p in f.params) or "void"
    args = ", ".join(f.names)
    out = ["EXPORT int MPI_%s(%s)" % (f.name, sig), "{",
           "\tstruct call_args a = %s;" % call_args(f, False)]
    starts_request = f.role in ("isend", "irecv", "imrecv", "init_send", "init_recv", "icoll", "icall")
    blocks = f.role in ("send", "recv", "probe", "mrecv", "sendrecv", "coll", "icoll", "ctor", "call")
    p2p = f.role in P2P_BLOCKING
    if blocks:
        out.append("\tstruct psrec_call *c = call_enter(&a);")
    if p2p:
        out.append("\tint ch = p2p_enter(&a, c);")
    out.append("\tint rc = PMPI_%s(%s);" % (f.name, args))
    out.append("")
    if p2p:
        out.append("\tp2p_leave(ch);")
    if f.role == "ctor":
        out.append("\tif (rc == MPI_SUCCESS)")
        out.append("\t\tcomm_made(%s, c ? c->coll_seq : 0, *%s);" % (f.comm(), f.new_comm()))
    if blocks:
        out.append("\tcall_leave(c);")
    if starts_request:
        persistent = "1" if f.role.startswith("init_") else "0"
        out.append("\tif (rc == MPI_SUCCESS)")
        out.append("\t\treq_add(*request, &a, %s);" % persistent)
    out += ["\treturn rc;", "}", ""]
    return "\n".join(out)


# ---- Fortran ------------------------------------------------------------------------------------
def f_params(f):
    """The Fortran twin's parameters: every argument by reference, then ierr, then the hidden
    lengths of character arguments."""
    ps = []
    for p in f.params:
        ps.append(("void *" if ("void" in p.ctype or p.is_char) else "F *") + p.name)
    ps.append("F *ierr")
    ps += ["size_t %s_len" % p.name for p in f.params if p.is_char]
    return ps


def f_names(f):
    return f.names + ["ierr"] + ["%s_len" % p.name for p in f.params if p.is_char]


def f_body(f):
    """The shared body of the twins: records around the library's own Fortran function."""
    real_args = ", ".join(f_names(f))
    out = []
    r = f.role
    blocks = r in ("send", "recv", "probe", "mrecv", "sendrecv", "coll", "icoll", "ctor", "call")
    if r in ("wait", "waitall", "waitany", "waitsome"):
        n = {"wait": "1", "waitall": "*count", "waitany": "*count", "waitsome": "*incount"}[r]
        reqs = "request" if r == "wait" else "array_of_requests"
        out.append("\tstruct call_args a = CALL_ARGS_NONE(PSREC_%s, caller);" % f.enum)
        out.append("\tstruct psrec_call *c = call_enter(&a);")
        out.append("\tstruct f_reqs q;")
        out.append("")
        out.append("\tf_reqs_before(&q, c, %s, %s);" % (n, reqs))
        out.append("\treal(%s);" % real_args)
        done = {"wait": "1", "waitall": "1", "waitany": "0", "waitsome": "0"}[r]
        idx = {"wait": "NULL, 0", "waitall": "NULL, 0", "waitany": "index, 1",
               "waitsome": "array_of_indices, FORT_OK(ierr) ? *outcount : 0"}[r]
        out.append("\tf_reqs_after(&q, %s, FORT_OK(ierr) && %s, %s);" % (reqs, done, idx))
        out.append("\tcall_leave(c);")
        return out
    if f.kind == "test":
        n = "1" if f.name == "Test" else ("*incount" if f.name == "Testsome" else "*count")
        reqs = "request" if f.name == "Test" else "array_of_requests"
        flag = "FORT_OK(ierr) && *outcount > 0" if f.name == "Testsome" else "FORT_OK(ierr) && *flag"
        done = "1" if f.name in ("Test", "Testall") else "0"
        idx = {"Test": "NULL, 0", "Testall": "NULL, 0", "Testany": "index, 1",
               "Testsome": "array_of_indices, *outcount"}[f.name]
        out.append("\tstruct f_reqs q;")
        out.append("")
        out.append("\tf_reqs_before(&q, NULL, %s, %s);" % (n, reqs))
        out.append("\treal(%s);" % real_args)
        out.append("\tif (%s)" % flag)
        out.append("\t\tf_reqs_after(&q, %s, %s, %s);" % (reqs, done, idx))
        out.append("\t(void)caller;")
        return out
    if f.name in ("Start", "Startall"):
        n, reqs = ("1", "request") if f.name == "Start" else ("*count", "array_of_requests")
        out.append("\treal(%s);" % real_args)
        out.append("\tif (FORT_OK(ierr))")
        out.append("\t\tf_reqs_started(%s, %s);" % (n, reqs))
        out.append("\t(void)caller;")
        return out
    if f.name == "Request_free":
        out.append("\tint slot = recording ? req_find(PMPI_Request_f2c(*request)) : -1;")
        out.append("")
        out.append("\treal(%s);" % real_args)
        out.append("\tif (slot >= 0 && FORT_OK(ierr))")
        out.append("\t\treq_drop(slot);")
        out.append("\t(void)caller;")
        return out
    if f.name == "Comm_free":
        out.append("\tif (recording)")
        out.append("\t\tcomm_forget(PMPI_Comm_f2c(*comm));")
        out.append("\treal(%s);" % real_args)
        out.append("\t(void)caller;")
        return out
    out.append("\tstruct call_args a = %s;" % call_args(f, True))
    if blocks:
        out.append("\tstruct psrec_call *c = call_enter(&a);")
    if r in P2P_BLOCKING:
        out.append("\tint ch = p2p_enter(&a, c);")
    out.append("")
    out.append("\treal(%s);" % real_args)
    if r in P2P_BLOCKING:
        out.append("\tp2p_leave(ch);")
    if r == "ctor":
        out.append("\tif (FORT_OK(ierr))")
        out.append("\t\tcomm_made(PMPI_Comm_f2c(*%s), c ? c->coll_seq : 0, PMPI_Comm_f2c(*%s));"
                   % (f.comm(), f.new_comm()))
    if blocks:
        out.append("\tcall_leave(c);")
    if r in ("isend", "irecv", "imrecv", "init_send", "init_recv", "icoll", "icall"):
        persistent = "1" if r.startswith("init_") else "0"
        out.append("\tif (FORT_OK(ierr))")
        out.append("\t\treq_add(PMPI_Request_f2c(*request), &a, %s);" % persistent)
    return out


def f_twins(f):
    lower = "mpi_" + f.name.lower()
    params = ", ".join(f_params(f))
    types = ["void *"] * (len(f.params) + 1) + ["size_t"] * sum(p.is_char for p in f.params)
    out = ["/* MPI_%s in Fortran */" % f.name,
           "typedef void (*f_%s_fn)(%s);" % (f.name, ", ".join(types)),
           "static void f_%s(f_%s_fn real, %s, uint64_t caller)" % (f.name, f.name, params), "{"]
    out += f_body(f)
    out += ["}", ""]
    forms = [lower + "_", lower + "__", lower, lower.upper(), lower + "_f08_"]
    args = ", ".join(f_names(f))
    for sym in forms:
        out.append("EXPORT void %s(%s)" % (sym, params))
        out.append("{")
        out.append("\tstatic f_%s_fn real;" % f.name)
        out.append("")
        out.append("\tif (!f_resolve((void **)&real, \"%s\")) {" % sym)
        out.append("\t\tf_missing(ierr, \"%s\");" % sym)
        out.append("\t\treturn;")
        out.append("\t}")
        out.append("\tf_%s(real, %s, CALLER);" % (f.name, args))
        out.append("}")
        out.append("")
    return "\n".join(out)


KINDS = ["none", "send", "recv", "probe", "mrecv", "sendrecv", "isend", "irecv", "imrecv",
         "init_send", "init_recv", "coll", "icoll", "ctor", "call", "icall", "wait", "waitall",
         "waitany", "waitsome", "test", "req", "init", "finalize"]


def funcs_header(funcs):
    out = ["/* psrec_funcs.h — generated by record/gen_wrappers.py from record/mpi.api: do not edit. */",
           "#ifndef PARASTACK_PSREC_FUNCS_H", "#define PARASTACK_PSREC_FUNCS_H", "",
           "/* What a call does, for the monitor's wait-for analysis (record/mpi.api's roles). */",
           "#define PSREC_KINDS(K) " + " ".join("K(%s)" % k.upper() for k in KINDS), "",
           "/* Every recorded function: X(ENUM, \"MPI_Name\", KIND). */",
           "#define PSREC_FUNCS(X) \\", "\tX(NONE, \"\", NONE) \\"]
    for f in funcs:
        if f.kind.lower() not in KINDS:
            raise ValueError("kind %s" % f.kind)
        out.append("\tX(%s, \"MPI_%s\", %s) \\" % (f.enum, f.name, f.kind.upper()))
    out += ["", "#endif", ""]
    return "\n".join(out)


def main():
    if len(sys.argv) != 3:
        sys.stderr.write("usage: gen_wrappers.py API OUT_DIR\n")
        return 2
    try:
        funcs = read_api(sys.argv[1])
        files = generate(funcs)
        os.makedirs(sys.argv[2], exist_ok=True)
        # Written whole, then renamed: make never sees half a file.
        for name, text in files:
            path = os.path.join(sys.argv[2], name)
            with open(path + ".tmp", "w") as f:
                f.write(text)
            os.replace(path + ".tmp", path)
    except (OSError, ValueError) as e:
        sys.stderr.write("gen_wrappers.py: %s\n" % e)
        return 1
    return 0


def generate(funcs):
    c = ["/* record_wrappers.c — generated by record/gen_wrappers.py from record/mpi.api: do not edit.",
         " * One of the recording layer's compilation units (record/layer.h has the map). */",
         "#include \"layer.h\"", ""]
    for f in funcs:
        if f.role not in C_BY_HAND:
            c.append(c_wrapper(f))
    c.append("#if PSREC_FORTRAN")
    c.append("/* Fortran entry points have no C header to declare them. */")
    c.append("#pragma GCC diagnostic ignored \"-Wmissing-prototypes\"")
    for f in funcs:
        if f.name not in F_BY_HAND:
            c.append(f_twins(f))
    c.append("#endif")
    c.append("")
    return (("psrec_funcs.h", funcs_header(funcs)), ("record_wrappers.c", "\n".join(c)))


if __name__ == "__main__":
    sys.exit(main())
