"""PyGate's bootstrap: runs one approved main.py and writes result.json beside it.

Usage: python -I -X utf8 bootstrap.py <run folder>/main.py [--allowed-imports=a,b,c]

It runs the code as __main__ in the working directory (the workspace), returns
the repr of a final expression, trims tracebacks to the person's code, saves
open matplotlib figures as PNG files, and writes the result manifest. It is
not a security boundary: the sandbox around this process is.
"""

import ast
import json
import linecache
import os
import sys
import threading
import time
import traceback
import types

DISPLAY_NAME = "main.py"
VALUE_LIMIT = 50_000
TRACEBACK_LIMIT = 20_000
MAX_FIGURE_PIXELS = 1600
HERE = os.path.abspath(__file__)


def strip_header(source):
    """Remove PyGate's PEP 723 block so line numbers match the code as sent."""
    lines = source.splitlines(keepends=True)
    if lines and lines[0].rstrip() == "# /// script":
        for i in range(1, len(lines)):
            if lines[i].rstrip() == "# ///":
                return "".join(lines[i + 1:])
    return source


def cap(text, limit):
    if len(text) <= limit:
        return text
    cut = len(text) - limit
    return text[: limit // 2] + f"\n… [{cut:,} characters cut] …\n" + text[-limit // 2:]


def describe(exc):
    te = traceback.TracebackException.from_exception(exc)
    # Drop the bootstrap's own frames so the traceback starts at the code.
    while te.stack and os.path.abspath(te.stack[0].filename) == HERE:
        te.stack = traceback.StackSummary.from_list(te.stack[1:])
    return {
        "type": type(exc).__name__,
        "message": str(exc),
        "traceback": cap("".join(te.format()), TRACEBACK_LIMIT),
    }


def save_figures(run_dir):
    plt = sys.modules.get("matplotlib.pyplot")
    if plt is None:
        return [], None
    names = []
    try:
        for num in plt.get_fignums():
            fig = plt.figure(num)
            width, height = fig.get_size_inches()
            dpi = min(100.0, MAX_FIGURE_PIXELS / max(width, height, 0.01))
            name = f"figure-{len(names) + 1}.png"
            fig.savefig(os.path.join(run_dir, name), dpi=dpi, format="png")
            names.append(name)
        plt.close("all")
    except Exception as exc:  # a broken figure must not hide the run's result
        return names, f"could not save a figure: {type(exc).__name__}: {exc}"
    return names, None


def install_import_guard(user_globals, allowed):
    """The strict level's import allow-list: a second layer for the code's
    own imports, never a boundary (the OS sandbox is the boundary)."""
    import builtins

    real_import = builtins.__import__
    allowed = frozenset(allowed)
    listing = ", ".join(sorted(allowed))

    def guarded(name, globals=None, locals=None, fromlist=(), level=0):
        caller = sys._getframe(1).f_globals
        if level == 0 and caller is user_globals:
            top = name.partition(".")[0]
            if top not in allowed:
                raise ImportError(
                    f"Importing {top!r} is not allowed at PyGate's strict sandbox level. "
                    f"Allowed modules: {listing}.",
                    name=top,
                )
        return real_import(name, globals, locals, fromlist, level)

    builtins.__import__ = guarded


def start_flusher():
    """Flush output regularly so what was printed survives a timeout kill."""

    def flush():
        while True:
            time.sleep(0.25)
            for stream in (sys.stdout, sys.stderr):
                try:
                    stream.flush()
                except Exception:
                    pass

    threading.Thread(target=flush, name="pygate-flush", daemon=True).start()


def main():
    main_path = os.path.abspath(sys.argv[1])
    allowed_imports = None
    for arg in sys.argv[2:]:
        if arg.startswith("--allowed-imports="):
            allowed_imports = [m for m in arg.split("=", 1)[1].split(",") if m]
    run_dir = os.path.dirname(main_path)
    with open(main_path, encoding="utf-8") as f:
        code = strip_header(f.read())
    linecache.cache[DISPLAY_NAME] = (len(code), None, code.splitlines(True), DISPLAY_NAME)

    module = types.ModuleType("__main__")
    module.__file__ = main_path
    module.__builtins__ = __builtins__
    sys.modules["__main__"] = module
    sys.path.insert(0, os.getcwd())
    sys.argv = [main_path]

    result = {"value": None, "error": None, "figures": [], "exit_code": 0}
    start_flusher()
    if allowed_imports is not None:
        install_import_guard(module.__dict__, allowed_imports)
    try:
        tree = ast.parse(code, filename=DISPLAY_NAME)
        last = None
        if tree.body and isinstance(tree.body[-1], ast.Expr):
            last = ast.Expression(tree.body.pop().value)
        exec(compile(tree, DISPLAY_NAME, "exec"), module.__dict__)
        if last is not None:
            value = eval(compile(last, DISPLAY_NAME, "eval"), module.__dict__)
            if value is not None:
                try:
                    result["value"] = cap(repr(value), VALUE_LIMIT)
                except Exception as exc:
                    result["value"] = f"<the value could not be shown: {type(exc).__name__}: {exc}>"
    except SystemExit as exc:
        code_ = exc.code
        if code_ is None or code_ == 0:
            pass
        elif isinstance(code_, int):
            result["exit_code"] = code_
            result["error"] = {"type": "SystemExit", "message": f"sys.exit({code_})", "traceback": ""}
        else:
            result["exit_code"] = 1
            result["error"] = {"type": "SystemExit", "message": str(code_), "traceback": ""}
    except BaseException as exc:
        result["exit_code"] = 1
        result["error"] = describe(exc)

    figures, problem = save_figures(run_dir)
    result["figures"] = figures
    if problem:
        result["figure_problem"] = problem

    for stream in (sys.stdout, sys.stderr):
        try:
            stream.flush()
        except Exception:
            pass
    tmp = os.path.join(run_dir, "result.json.tmp")
    with open(tmp, "w", encoding="utf-8") as f:
        json.dump(result, f, ensure_ascii=False)
    os.replace(tmp, os.path.join(run_dir, "result.json"))
    return result["exit_code"]


if __name__ == "__main__":
    sys.exit(main())
