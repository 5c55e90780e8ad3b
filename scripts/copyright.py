#!/usr/bin/python3
"""The package's /usr/share/doc/upright/copyright (machine-readable, DEP-5).

    copyright.py packaging/debian/copyright.in CHECKOUTS LINKFILELIST > copyright

The hand-written part (Upright itself, the Swift runtime and Foundation linked in statically,
the C code that packages carry inside them) is copyright.in; in place of its @PACKAGES@ line, one
paragraph for each Swift package whose code is in the binary: a package is in it when one of
its modules (a folder of its Sources/) has an object in LINKFILELIST (the list of objects SwiftPM
linked the product from, each .../MODULE.build/FILE.o). Its holders are read from its
sources' headers, its licence from its LICENSE file (Apache-2.0 by reference to Debian's
common-licenses, MIT by copyright.in's paragraph, any other licence's text in full), and its NOTICE, which Apache-2.0 asks to be
passed on with the program, goes into the paragraph's Comment.
"""

import os
import re
import sys


def folded(text):
    """Text as a DEP-5 field's continuation lines: each indented, an empty one as " ."."""
    return "\n".join(" " + line if line.strip() else " ." for line in text.strip("\n").split("\n"))


def holders(package_dir):
    """The holders named in the sources' copyright headers, without their years."""
    found = []
    for root, _, files in os.walk(os.path.join(package_dir, "Sources")):
        for name in sorted(files):
            if not name.endswith((".swift", ".c", ".h", ".cpp", ".hpp")):
                continue
            with open(os.path.join(root, name), encoding="utf-8", errors="replace") as f:
                head = f.read(2000)
            for m in re.finditer(r"Copyright \(c\) ([^\n]*)", head):
                who = re.sub(r"^[\d\s,\-]+", "", m.group(1)).strip(" .")
                who = re.sub(r"\s*(Licensed|All rights).*$", "", who)
                if who and who not in found:
                    found.append(who)
            if len(found) >= 3:
                return found
    return found


def licence(package_dir):
    """(short name, text or None) from the package's LICENSE file."""
    for name in sorted(os.listdir(package_dir)):
        if name.upper().startswith(("LICENSE", "COPYING")):
            with open(os.path.join(package_dir, name), encoding="utf-8", errors="replace") as f:
                text = f.read()
            if "Apache License" in text[:400] and "Version 2.0" in text[:400]:
                return "Apache-2.0", None
            if "MIT License" in text[:200] or "Permission is hereby granted, free of charge" in text:
                return "MIT", text
            return "other", text
    sys.exit(f"copyright.py: {package_dir} has no LICENSE file")


def notice(package_dir):
    for name in ("NOTICE.txt", "NOTICE"):
        path = os.path.join(package_dir, name)
        if os.path.exists(path):
            with open(path, encoding="utf-8", errors="replace") as f:
                return f.read()
    return None


def main():
    if len(sys.argv) != 4:
        sys.exit("usage: copyright.py COPYRIGHT.in CHECKOUTS LINKFILELIST")
    template, checkouts, objects = sys.argv[1:]
    with open(objects, encoding="utf-8") as f:
        built = {m.group(1) for m in re.finditer(r"/([^/\n]+)\.build/[^/\n]+\.o$", f.read(), re.M)}
    with open(template, encoding="utf-8") as f:
        head, marker, tail = f.read().partition("@PACKAGES@\n")
    if not marker:
        sys.exit(f"copyright.py: {template} has no @PACKAGES@ line")
    out = [head.rstrip("\n")]
    licences = {}
    for package in sorted(os.listdir(checkouts), key=str.lower):
        path = os.path.join(checkouts, package)
        sources = os.path.join(path, "Sources")
        if not os.path.isdir(sources) or not built.intersection(os.listdir(sources)):
            continue  # none of its modules is in the binary (a test's dependency)
        short, text = licence(path)
        if short == "other":
            short = f"other-{package}"
        if short != "MIT" and text is not None:  # MIT's words are copyright.in's
            licences[short] = text
        who = holders(path) or [f"the {package} authors"]
        paragraph = f"Files: {package}/*\nCopyright: " + "\n ".join(who) + f"\nLicense: {short}"
        if (n := notice(path)) is not None:
            paragraph += "\nComment: its NOTICE:\n" + folded(n)
        out.append(paragraph)
    out.append(tail.strip("\n"))
    for short, text in sorted(licences.items()):
        out.append(f"License: {short}\n" + folded(text))
    print("\n\n".join(out))


if __name__ == "__main__":
    main()
