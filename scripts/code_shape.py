#!/usr/bin/env python3
"""Measures the shape of C++ sources: lines per file and per function body.

    python3 scripts/code_shape.py [--max-function N] [--max-file N] PATH...

A function is a definition at namespace or class scope whose body opens with '{' at the end of
its signature and closes with the matching '}' (lambdas and nested blocks count toward it). A
function right after a `// clang-format off` line is a table of data laid out by hand (the key
table's rows): it is listed but not held to the function limit.
Prints every file and function over its limit and exits 1 when there is one, so that a test can
hold a folder to the sizes docs/architecture.md promises. Comments and strings are skipped when
braces are matched.
"""
import argparse
import os
import re
import sys

SIGNATURE = re.compile(r'^\s*(?:template\s*<[^>]*>\s*)?(?:[\w:<>,~*&\[\]]+\s+)*[~\w:]+(?:<[^>]*>)?\s*\(')
NOT_FUNCTION = re.compile(r'^\s*(if|for|while|switch|return|catch|else|do|case|namespace|struct|class|enum|union)\b')


def strip_code(text):
    """The text with comments, strings and character literals blanked (lengths kept)."""
    out, i, n = [], 0, len(text)
    while i < n:
        c = text[i]
        if text.startswith('//', i):
            j = text.find('\n', i)
            j = n if j < 0 else j
            out.append(' ' * (j - i)); i = j
        elif text.startswith('/*', i):
            j = text.find('*/', i + 2)
            j = n if j < 0 else j + 2
            out.append(re.sub(r'[^\n]', ' ', text[i:j])); i = j
        elif text.startswith('R"', i) and (m := re.match(r'R"([^(\s]*)\(', text[i:])):
            end = text.find(')' + m.group(1) + '"', i)
            j = n if end < 0 else end + len(m.group(1)) + 2
            out.append(re.sub(r'[^\n]', ' ', text[i:j])); i = j
        elif c in '"\'':
            j = i + 1
            while j < n and text[j] != c:
                j += 2 if text[j] == '\\' else 1
            out.append(' ' * (j + 1 - i)); i = j + 1
        else:
            out.append(c); i += 1
    return ''.join(out)


def functions(path):
    """(name, first line, line count, is a table) of every function definition in `path`."""
    raw = open(path, encoding='utf-8', errors='replace').read().split('\n')
    code = strip_code('\n'.join(raw))
    lines = code.split('\n')
    found, depth, i = [], 0, 0
    scopes = []  # depth at which each open namespace/class body sits
    while i < len(lines):
        line = lines[i]
        at_scope = depth == 0 or (scopes and scopes[-1] == depth)
        if at_scope and SIGNATURE.match(line) and not NOT_FUNCTION.match(line):
            # gather the signature up to '{' or ';'
            j, sig = i, line
            while j < len(lines) - 1 and not re.search(r'[{;]\s*$', lines[j]) and j - i < 12:
                j += 1; sig += '\n' + lines[j]
            if re.search(r'\{\s*$', lines[j]) and '=' not in sig.split('(')[0]:
                name = re.match(r'^\s*(?:template\s*<[^>]*>\s*)?(?:[\w:<>,~*&\[\]]+\s+)*([~\w:]+)', sig).group(1)
                d, k = 0, i
                while k < len(lines):
                    d += lines[k].count('{') - lines[k].count('}')
                    if d <= 0 and k >= j:
                        break
                    k += 1
                table = i > 0 and 'clang-format off' in raw[i - 1]
                found.append((name, i + 1, k - i + 1, table))
                i = k + 1
                continue
        opened = line.count('{') - line.count('}')
        if re.match(r'^\s*(namespace\b.*|(class|struct)\b[^;]*)\{\s*$', line):
            scopes.append(depth + 1)
        depth += opened
        while scopes and depth < scopes[-1]:
            scopes.pop()
        i += 1
    return found


def main():
    ap = argparse.ArgumentParser(description=__doc__.split('\n')[0])
    ap.add_argument('--max-function', type=int, default=80, help='most lines a function may take')
    ap.add_argument('--max-file', type=int, default=700, help='most lines a file may take')
    ap.add_argument('--list', action='store_true', help='print every file and its longest function')
    ap.add_argument('paths', nargs='+')
    args = ap.parse_args()
    files = []
    for p in args.paths:
        if os.path.isdir(p):
            for root, _, names in os.walk(p):
                files += [os.path.join(root, n) for n in names if n.endswith(('.cpp', '.hpp', '.cu', '.cuh'))]
        else:
            files.append(p)
    over = 0
    for f in sorted(files):
        n = sum(1 for _ in open(f, encoding='utf-8', errors='replace'))
        fns = functions(f)
        longest = max(fns, key=lambda t: t[2], default=('-', 0, 0, False))
        if args.list:
            print(f'{f}: {n} lines; longest function {longest[0]} ({longest[2]} lines, line {longest[1]})')
        if n > args.max_file:
            print(f'{f}: {n} lines, over {args.max_file}'); over += 1
        for name, line, count, table in fns:
            if count > args.max_function and not table:
                print(f'{f}:{line}: {name} is {count} lines, over {args.max_function}'); over += 1
    return 1 if over else 0


if __name__ == '__main__':
    sys.exit(main())
