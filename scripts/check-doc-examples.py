#!/usr/bin/env python3
"""Fails when a documented item of gpujit has no code example of its own.

Run after `cargo doc -p gpujit --no-deps` (CI runs it after `cargo doc`):

    python3 scripts/check-doc-examples.py [target/doc/gpujit]

It reads rustdoc's HTML: every item page listed in `all.html` and every
module page. An item passes when its own top doc block (not a method's, not
a linked item's) holds a rendered Rust example. `no_run` examples count;
`text` blocks do not. Exits 1 listing the items without one, 2 when the
pages are missing or look unlike rustdoc's (so it never passes vacuously).
"""

import pathlib
import re
import sys

# The item's own description; rustdoc wraps it so since 1.5x.
TOP_DOC = re.compile(r'<details class="toggle top-doc" open>.*?<div class="docblock">(.*?)</div></details>', re.S)
ITEM_LINK = re.compile(r'<a href="([^"#]+\.html)">([^<]+)</a>')
EXAMPLE = "rust-example-rendered"


def main() -> int:
    root = pathlib.Path(sys.argv[1] if len(sys.argv) > 1 else "target/doc/gpujit")
    all_html = root / "all.html"
    if not all_html.is_file():
        print(f"{all_html} not found: run `cargo doc -p gpujit --no-deps` first", file=sys.stderr)
        return 2
    pages = {name: root / href for href, name in ITEM_LINK.findall(all_html.read_text()) if not href.startswith("..")}
    for index in sorted(root.rglob("index.html")):
        module = index.parent.relative_to(root).as_posix().replace("/", "::")
        pages[module or "(crate)"] = index
    if len(pages) < 20:
        print(f"only {len(pages)} items found in {root}: has rustdoc's HTML changed?", file=sys.stderr)
        return 2

    missing = []
    for name, page in sorted(pages.items()):
        top = TOP_DOC.search(page.read_text()) if page.is_file() else None
        if top is None:
            missing.append(f"{name}: no doc block ({page})")
        elif EXAMPLE not in top.group(1):
            missing.append(f"{name}: no example ({page})")
    if missing:
        print(f"{len(missing)} of {len(pages)} documented items have no example of their own:", file=sys.stderr)
        for m in missing:
            print(f"  {m}", file=sys.stderr)
        return 1
    print(f"all {len(pages)} documented items of {root} have an example")
    return 0


if __name__ == "__main__":
    sys.exit(main())
