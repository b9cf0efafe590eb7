"""The documents' claims that a machine can check: every bench/NOTES.md section the code and the
documents cite exists, every link and repository path in the front door and docs/ resolves, and
the front door stays a door (short, its reading order made of files that exist)."""
import re
import subprocess

from conftest import ROOT

NOTES = ROOT / "bench" / "NOTES.md"
DOCUMENTS = [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]
FRONT_DOOR_LINES = 250


def tracked_text_files():
    listed = subprocess.run(["git", "ls-files"], cwd=ROOT, capture_output=True, text=True).stdout.split()
    if not listed:  # not a git checkout (an unpacked archive): every file below the root
        listed = [str(p.relative_to(ROOT)) for p in ROOT.rglob("*") if p.is_file() and ".git" not in p.parts]
    return [ROOT / p for p in listed
            if p.endswith((".cu", ".cuh", ".hpp", ".py", ".sh", ".md", ".toml")) or p == "Makefile"]


def test_every_cited_notes_section_exists():
    """A citation such as (bench/NOTES.md, "The single-pass family") names the start of a heading
    or of a bold entry of NOTES; a renamed section breaks it here, not in a reader's hands."""
    notes = NOTES.read_text()
    headings = [m.group(1).strip() for m in re.finditer(r"^#{2,4} (.+)$", notes, re.M)]
    entries = [m.group(1).strip() for m in re.finditer(r"\*\*([^*]+)", notes)]
    cited, missing = 0, []
    for path in tracked_text_files():
        if path == NOTES:
            continue
        # A citation may wrap across comment lines: join them, dropping the comment markers.
        text = re.sub(r"\n\s*(?://|#|\*)?\s*", " ", path.read_text(errors="replace"))
        for match in re.finditer(r"NOTES(?:\.md)?,? \"([^\"]+)\"", text):
            title = match.group(1).strip()
            cited += 1
            if not any(h.startswith(title) for h in headings + entries):
                missing.append(f"{path.relative_to(ROOT)}: \"{title}\"")
    assert cited > 20, "the pattern no longer finds the citations"
    assert not missing, "citations of NOTES sections that do not exist:\n" + "\n".join(missing)


def test_links_and_paths_of_the_documents_resolve():
    broken = []
    for document in DOCUMENTS:
        text = document.read_text()
        for match in re.finditer(r"\]\(([^)#\s]+)(?:#[^)]*)?\)", text):
            target = match.group(1)
            if not target.startswith(("http://", "https://")) and not (document.parent / target).exists():
                broken.append(f"{document.relative_to(ROOT)}: link {target}")
        # Repository paths in backticks (`src/...`); patterns (<gpu>, *, {a,b}, $VAR) are not paths.
        for match in re.finditer(r"`((?:src|include|scripts|tests|tune|examples|python|bench)/[^`\s]+?)`", text):
            path = match.group(1).rstrip(".,;:")
            if not any(c in path for c in "<>*{}$") and not (ROOT / path).exists():
                broken.append(f"{document.relative_to(ROOT)}: path {path}")
    assert not broken, "\n".join(broken)


def test_the_front_door_is_short_and_its_reading_order_exists():
    text = (ROOT / "README.md").read_text()
    assert len(text.splitlines()) <= FRONT_DOOR_LINES, f"README.md is over {FRONT_DOOR_LINES} lines: move reference to docs/"
    order = text.split("## Door 2: learn the scans")[1].split("\n## ")[0]
    steps = re.findall(r"^(\d+)\. \[`([^`]+)`\]\(([^)]+)\)", order, re.M)
    assert [int(number) for number, _, _ in steps] == list(range(1, len(steps) + 1)) and 6 <= len(steps) <= 10
    for _, shown, target in steps:
        assert (ROOT / target).is_file() and target.endswith(shown), f"reading order: {shown} -> {target}"
    for door in ("## Door 1: use the fastest scan", "## Door 3: benchmark", "<!-- fastest-table:begin"):
        assert door in text


def test_the_front_door_lists_every_binary_under_its_folder():
    """The README's list of the zoo, by folder, is src/*/*.cu exactly: a new or renamed variant
    shows here until the list says it."""
    text = (ROOT / "README.md").read_text()
    listed = {}
    for folder, names in re.findall(r"^- `src/(\w+)/`: (.+?)\.$", re.sub(r"\n  ", " ", text), re.M):
        listed.update({name: folder for name in re.findall(r"`(\w+)`", names)})
    on_disk = {p.stem: p.parent.name for p in (ROOT / "src").glob("*/*.cu")}
    assert listed == on_disk


def heading_anchors(text):
    """GitHub's anchors of a Markdown file's headings: lower case, punctuation dropped, spaces to
    hyphens (repeats numbered -1, -2, ...)."""
    anchors, seen = set(), {}
    for title in re.findall(r"^#{1,6} (.+)$", re.sub(r"```.*?```", "", text, flags=re.S), re.M):
        anchor = re.sub(r"[^\w\- ]", "", title.strip().lower()).replace(" ", "-")
        n = seen.get(anchor, 0)
        seen[anchor] = n + 1
        anchors.add(anchor if n == 0 else f"{anchor}-{n}")
    return anchors


def test_links_of_the_notes_and_their_archive_resolve():
    """bench/NOTES.md (by topic) and bench/notes/ (the dated logs) link to each other and to their
    own sections: every link's file exists from the linking file's folder, and every #anchor is a
    heading of its target."""
    broken = []
    for document in [NOTES, *sorted((ROOT / "bench" / "notes").glob("*.md"))]:
        text = document.read_text()
        for target, anchor in re.findall(r"\]\(([^)#\s]*)(?:#([^)\s]*))?\)", text):
            if target.startswith(("http://", "https://")):
                continue
            path = (document.parent / target) if target else document
            if not path.exists():
                broken.append(f"{document.relative_to(ROOT)}: link {target}")
            elif anchor and anchor not in heading_anchors(path.read_text()):
                broken.append(f"{document.relative_to(ROOT)}: anchor {target}#{anchor}")
    assert not broken, "\n".join(broken)
