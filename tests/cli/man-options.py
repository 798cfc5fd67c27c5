#!/usr/bin/python3
# SPDX-License-Identifier: BSD-3-Clause
"""man-options — the options a man page has an entry for, one per line.

  tests/cli/man-options.py PAGE...

An entry is a tagged paragraph (.TP) whose tag names the option: "--report FILE",
"-h, --help", "--on-hang=kill|report". Each long option of a tag is printed once, as the
whole word (--report, never a prefix of --report-dir): test-man holds every command's --help
to this list, word by word.
"""
import re
import sys

LONG = re.compile(r'(?<![\w-])--[a-z][a-z0-9-]*')


def plain(line):
    """A tag line without its macro, font escapes and quoting."""
    line = re.sub(r'^\.(B|BI|BR|IB|RB|I|IR|RI)\s+', '', line)
    line = re.sub(r'\\f[BIRP]|\\f\(..', '', line)
    return line.replace('\\-', '-').replace('"', ' ')


def entries(path):
    found = set()
    with open(path, errors='replace') as fh:
        lines = fh.read().split('\n')
    for i, line in enumerate(lines[:-1]):
        if line.strip() == '.TP':
            found.update(LONG.findall(plain(lines[i + 1])))
    return found


def main():
    if len(sys.argv) < 2:
        print('usage: man-options.py PAGE...', file=sys.stderr)
        return 2
    out = set()
    for page in sys.argv[1:]:
        try:
            out |= entries(page)
        except OSError as e:
            print(f'man-options.py: cannot read {page}: {e.strerror}', file=sys.stderr)
            return 1
    for o in sorted(out):
        print(o)
    return 0


if __name__ == '__main__':
    sys.exit(main())
