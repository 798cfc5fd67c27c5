# SPDX-License-Identifier: BSD-3-Clause
# pyloop — a script looping in inner(), called from outer(): the Python frames parastack must
# read from every CPython it knows (tests/cli/test-python.sh). Any CPython 3.8+; no imports.


def inner():
    x = 0
    while True: x += 1  # site: pyloop-inner  (one line: the loop's test and body alike)


def outer():
    inner()  # site: pyloop-outer


outer()
