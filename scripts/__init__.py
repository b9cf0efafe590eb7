"""The zoo's tools, one package run from the repository root: python3 -m scripts COMMAND [ARGS...]
(scripts/__main__.py lists the commands). Its modules import each other as scripts.NAME, and so do
tests/ and tune/tune_select.py; nothing edits sys.path."""
