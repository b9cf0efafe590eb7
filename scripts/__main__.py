"""python3 -m scripts COMMAND [ARGS...], from the repository root: the one entry to the zoo's tools.

Without a command, or with -h/--help, it lists them, each with the first line of its manual (a
module's docstring, a shell script's first comment line). The commands are found in this folder:
every module with a main(argv) is a command named like the module with dashes
(results_table.py -> results-table), and every executable .sh likewise (sanitize.sh -> sanitize),
which is exec'd with the arguments (the Makefile and bench.sh may still run the .sh files
themselves). The other files (timing_table.py, the sourced binaries.sh and sweep.sh) are listed as
helpers. An unknown command exits 2; a command whose module needs a Python package that the
interpreter lacks (numpy, pandas, matplotlib: requirements.txt) exits 3, naming it."""
import ast
import importlib
import os
import re
import sys
from pathlib import Path

FOLDER = Path(__file__).resolve().parent


def is_command(path):
    """A module that defines main(argv), or an executable shell script."""
    if path.suffix == ".sh":
        return os.access(path, os.X_OK)
    tree = ast.parse(path.read_text())
    return any(isinstance(node, ast.FunctionDef) and node.name == "main" for node in tree.body)


def manual_line(path):
    """The first line of the file's manual: its docstring, or its first comment after the #! line."""
    text = path.read_text()
    if path.suffix == ".py":
        return (ast.get_docstring(ast.parse(text)) or "").splitlines()[0]
    comment = next(line for line in text.splitlines() if line.startswith("#") and not line.startswith("#!"))
    return re.sub(r"^#\s*(\S+\.sh -- )?", "", comment)  # without the "name.sh -- " it opens with


def tools():
    """(commands, helpers): {command name: file} and [file], for every .py and .sh in this folder."""
    commands, helpers = {}, []
    for path in sorted(FOLDER.glob("*.py")) + sorted(FOLDER.glob("*.sh")):
        if path.name in ("__init__.py", "__main__.py"):
            continue
        if is_command(path):
            commands[path.stem.replace("_", "-")] = path
        else:
            helpers.append(path)
    return dict(sorted(commands.items())), helpers


def listing(commands, helpers):
    width = max(map(len, commands))
    lines = ["usage: python3 -m scripts COMMAND [ARGS...]   (from the repository root)", "", "commands:"]
    lines += [f"  {name:<{width}}  {manual_line(path)}" for name, path in commands.items()]
    lines += ["", "helpers, used by the commands (not commands):"]
    lines += [f"  {path.name}: {manual_line(path)}" for path in helpers]
    return "\n".join(lines)


def main(argv):
    commands, helpers = tools()
    if not argv or argv[0] in ("-h", "--help"):
        print(listing(commands, helpers))
        return 0
    name, args = argv[0], argv[1:]
    if name not in commands:
        print(f"python3 -m scripts: unknown command '{name}' (python3 -m scripts lists them)", file=sys.stderr)
        return 2
    path = commands[name]
    if path.suffix == ".sh":
        os.execv(path, [str(path), *args])
    sys.argv[0] = f"python3 -m scripts {name}"  # argparse's prog, for the usage lines
    try:
        module = importlib.import_module(f"scripts.{path.stem}")
    except ModuleNotFoundError as missing:
        if (missing.name or "").split(".")[0] == "scripts":
            raise  # a bug of ours, not the machine's
        print(f"python3 -m scripts {name}: needs the Python package '{missing.name}', which this "
              f"interpreter ({sys.executable}) lacks: pip install -r requirements.txt, or run it "
              f"with .venv/bin/python (make python-deps)", file=sys.stderr)
        return 3
    return module.main(args)


sys.exit(main(sys.argv[1:]))
