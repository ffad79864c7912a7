#!/usr/bin/env python3
"""What costs what in the page's WebAssembly module (issue 14: page weight).

Reads the module cargo wrote (before wasm-bindgen and wasm-opt strip the function names),
and prints its sections and the bytes of function code per crate, largest first. Trait
impls are counted under the implementing type's crate (`<serde_json …`); names that are
not Rust's legacy mangling are shown as they are.

    python3 .ci/perf/wasm_sizes.py target/wasm32-unknown-unknown/release/brokerlab-app.wasm [ROWS]

The figures are before wasm-opt (which shrinks code by about 30 %), so read them as
shares, not as bytes shipped. Measurements only: nothing here passes or fails.
"""

import collections
import re
import sys

SECTIONS = {1: "type", 2: "import", 3: "function", 4: "table", 5: "memory", 6: "global",
            7: "export", 8: "start", 9: "element", 10: "code", 11: "data", 12: "data count"}


def uleb(data, i):
    """An unsigned LEB128 number at `i`: (value, index after it)."""
    value = shift = 0
    while True:
        byte = data[i]
        i += 1
        value |= (byte & 0x7F) << shift
        shift += 7
        if byte < 0x80:
            return value, i


def imported_functions(data, i):
    """How many functions the import section at `i` imports (they come first in the index space)."""
    count, i = uleb(data, i)
    functions = 0
    for _ in range(count):
        for _ in range(2):  # module and field names
            length, i = uleb(data, i)
            i += length
        kind = data[i]
        i += 1
        if kind == 0:  # function: type index
            _, i = uleb(data, i)
            functions += 1
        elif kind == 1:  # table: element type, limits
            i += 1
            flags, i = uleb(data, i)
            _, i = uleb(data, i)
            if flags & 1:
                _, i = uleb(data, i)
        elif kind == 2:  # memory: limits
            flags, i = uleb(data, i)
            _, i = uleb(data, i)
            if flags & 1:
                _, i = uleb(data, i)
        elif kind == 3:  # global: value type, mutability
            i += 2
    return functions


def function_names(data, i, end):
    """The name section's function names: {function index: name}."""
    names = {}
    while i < end:
        sub = data[i]
        length, i = uleb(data, i + 1)
        if sub == 1:
            count, j = uleb(data, i)
            for _ in range(count):
                index, j = uleb(data, j)
                size, j = uleb(data, j)
                names[index] = data[j:j + size].decode("utf8", "replace")
                j += size
        i += length
    return names


def crate_of(name):
    """The crate a mangled function belongs to (the first path segment)."""
    if not name.startswith("_ZN"):
        return name[:40]
    match = re.match(r"(\d+)", name[3:])
    if not match:
        return name[:40]
    first = name[3 + len(match.group(1)):][: int(match.group(1))]
    if first.startswith("_$LT$"):
        return "<" + first[5:].replace("$u20$", " ").split("..")[0]
    return first


def main():
    data = open(sys.argv[1], "rb").read()
    rows = int(sys.argv[2]) if len(sys.argv) > 2 else 30
    i, imports, bodies, names, sections = 8, 0, [], {}, []
    while i < len(data):
        section = data[i]
        size, i = uleb(data, i + 1)
        end = i + size
        if section == 0:
            length, j = uleb(data, i)
            custom = data[j:j + length].decode("utf8", "replace")
            sections.append((f"custom {custom}", size))
            if custom == "name":
                names = function_names(data, j + length, end)
        else:
            sections.append((SECTIONS.get(section, str(section)), size))
        if section == 2:
            imports = imported_functions(data, i)
        if section == 10:
            count, j = uleb(data, i)
            for _ in range(count):
                length, j = uleb(data, j)
                bodies.append(length)
                j += length
        i = end
    print("sections (bytes):")
    for name, size in sections:
        print(f"  {size:>10,}  {name}")
    by_crate, functions = collections.Counter(), collections.Counter()
    for k, length in enumerate(bodies):
        crate = crate_of(names.get(imports + k, "?"))
        by_crate[crate] += length
        functions[crate] += 1
    total = sum(bodies)
    print(f"\nfunction code by crate: {total:,} bytes in {len(bodies):,} functions")
    for crate, size in by_crate.most_common(rows):
        print(f"  {size:>10,}  {100 * size / total:5.1f} %  {functions[crate]:>6,} fns  {crate}")


if __name__ == "__main__":
    main()
