# SPDX-License-Identifier: BSD-3-Clause
# sitecustomize -- parastack's collective record for torch.distributed (parastack_torchrec.py),
# on a Python rank's path because the recording layer, preloaded into every rank, put this
# directory on PYTHONPATH (record/python_path.c). Then the interpreter's own sitecustomize
# (Debian's, a site's, a venv's), which this one would hide, runs as it would have. Written for
# every Python a rank may be, 2.7 included: nothing here may fail or change the program.
import os
import sys


def _parastack_start():
    here = os.path.dirname(os.path.abspath(__file__))
    if sys.version_info >= (3, 8) and os.environ.get("PARASTACK_TORCH_RECORD", "1") != "0":
        try:
            import parastack_torchrec
            parastack_torchrec.install()
        except Exception:
            pass
    spec = None
    try:
        import importlib.machinery
        import importlib.util
        rest = [p for p in sys.path if os.path.abspath(p or ".") != here]
        spec = importlib.machinery.PathFinder.find_spec("sitecustomize", rest)
    except Exception:
        pass
    # The other one's errors are its own: site reports them as it would have.
    if spec is not None and spec.origin and os.path.abspath(spec.origin) != os.path.abspath(__file__):
        module = importlib.util.module_from_spec(spec)
        sys.modules["sitecustomize"] = module
        spec.loader.exec_module(module)
    elif sys.version_info[0] == 2:
        _parastack_chain_py2(here)


def _parastack_chain_py2(here):
    import imp
    rest = [p for p in sys.path if os.path.abspath(p or ".") != here]
    try:
        found = imp.find_module("sitecustomize", rest)
    except ImportError:
        return
    try:
        sys.modules["sitecustomize"] = imp.load_module("sitecustomize", *found)
    finally:
        if found[0]:
            found[0].close()


_parastack_start()
