"""PyGate's static analysis of code waiting for approval.

Reads the code on stdin, parses it with Python's own parser (nothing is
executed), and prints one JSON object: imports, flagged uses with line
numbers, literal paths written or deleted, and whether it could parse.
The summary is a hint for the person, not a guarantee: code can hide what
it does, which is why the OS sandbox is the boundary.
"""

import ast
import json
import sys

SUBPROCESS = {"subprocess", "pty", "multiprocessing", "pexpect", "sh", "plumbum"}
NETWORK = {
    "socket", "ssl", "http", "urllib", "urllib2", "urllib3", "requests", "httpx", "aiohttp", "ftplib",
    "smtplib", "poplib", "imaplib", "telnetlib", "xmlrpc", "websocket", "websockets", "paramiko",
    "asyncssh", "grpc", "socketserver", "selectors", "asyncio", "dns", "pycurl", "mechanize", "scrapy",
}
NATIVE = {"ctypes", "cffi", "_ctypes", "mmap"}
OS_RUN = {"system", "popen", "spawnl", "spawnle", "spawnlp", "spawnlpe", "spawnv", "spawnve", "spawnvp",
          "spawnvpe", "execl", "execle", "execlp", "execlpe", "execv", "execve", "execvp", "execvpe",
          "fork", "forkpty", "posix_spawn", "posix_spawnp", "startfile", "kill", "killpg"}
DELETE_FUNCS = {("os", "remove"), ("os", "unlink"), ("os", "rmdir"), ("os", "removedirs"),
                ("shutil", "rmtree"), ("shutil", "move"), ("os", "rename"), ("os", "replace"),
                ("os", "truncate")}
HIDING = {"__import__", "__builtins__", "__subclasses__", "__globals__", "__code__", "__loader__",
          "__dict__", "__getattribute__", "__reduce__", "__reduce_ex__", "__class__", "__bases__",
          "__mro__", "__base__", "__closure__", "__func__", "__self__", "__spec__"}
DYNAMIC = {"eval", "exec", "compile", "__import__", "globals", "locals", "vars", "getattr", "setattr",
           "delattr", "breakpoint"}


def dotted(node):
    """a.b.c for Name/Attribute chains, else None."""
    parts = []
    while isinstance(node, ast.Attribute):
        parts.append(node.attr)
        node = node.value
    if isinstance(node, ast.Name):
        parts.append(node.id)
        return ".".join(reversed(parts))
    return None


def literal(node):
    if isinstance(node, ast.Constant) and isinstance(node.value, (str, bytes)):
        v = node.value
        return v if isinstance(v, str) else v.decode("utf-8", "replace")
    if isinstance(node, ast.JoinedStr):
        return "f-string"
    return None


class Analyzer(ast.NodeVisitor):
    def __init__(self):
        self.imports = []
        self.flags = []
        self.writes = []
        self.deletes = []
        self.aliases = {}  # local name -> module or module.attr

    def flag(self, kind, node, detail):
        self.flags.append({"kind": kind, "line": getattr(node, "lineno", 0), "detail": detail})

    def note_module(self, name, node):
        top = name.split(".")[0]
        if top not in self.imports:
            self.imports.append(top)
        if top in SUBPROCESS:
            self.flag("subprocess", node, f"imports {name}, which can run other programs")
        if top in NETWORK:
            self.flag("network", node, f"imports {name}, which can use the network")
        if top in NATIVE:
            self.flag("native", node, f"imports {name}, which can call native code")
        if top == "importlib":
            self.flag("dynamic", node, "imports importlib, which can load modules by computed names")

    def visit_Import(self, node):
        for a in node.names:
            self.note_module(a.name, node)
            self.aliases[a.asname or a.name.split(".")[0]] = a.name if a.asname else a.name.split(".")[0]
        self.generic_visit(node)

    def visit_ImportFrom(self, node):
        if node.module and node.level == 0:
            self.note_module(node.module, node)
            for a in node.names:
                self.aliases[a.asname or a.name] = f"{node.module}.{a.name}"
                if node.module == "os" and a.name in OS_RUN:
                    self.flag("subprocess", node, f"imports os.{a.name}, which can run other programs")
                if (node.module, a.name) in DELETE_FUNCS:
                    self.flag("delete", node, f"imports {node.module}.{a.name}, which deletes or moves files")
        self.generic_visit(node)

    def resolve(self, name):
        if name is None:
            return None
        head, _, rest = name.partition(".")
        base = self.aliases.get(head, head)
        return f"{base}.{rest}" if rest else base

    def visit_Call(self, node):
        name = self.resolve(dotted(node.func))
        if name:
            mod, _, fn = name.rpartition(".")
            if name in DYNAMIC or fn in {"__import__"}:
                self.flag("dynamic", node, f"calls {name}(), which can run or reach code hidden in data")
            if mod == "os" and fn in OS_RUN:
                self.flag("subprocess", node, f"calls {name}(), which can run other programs")
            if (mod, fn) in DELETE_FUNCS:
                target = literal(node.args[0]) if node.args else None
                self.deletes.append({"path": target or "(computed)", "line": node.lineno})
                self.flag("delete", node, f"calls {name}() on {target or 'a computed path'}")
            if name == "importlib.import_module":
                self.flag("dynamic", node, "loads a module by a computed name")
            if name == "open" or fn in {"write_text", "write_bytes"}:
                self.check_write(node, name, fn)
        elif isinstance(node.func, ast.Attribute) and node.func.attr in {"unlink", "rmdir", "rmtree"}:
            self.deletes.append({"path": "(computed)", "line": node.lineno})
            self.flag("delete", node, f"calls .{node.func.attr}(), which deletes files")
        elif isinstance(node.func, ast.Attribute) and node.func.attr in {"write_text", "write_bytes"}:
            self.check_write(node, node.func.attr, node.func.attr)
        self.generic_visit(node)

    def check_write(self, node, name, fn):
        if name == "open":
            mode = None
            if len(node.args) >= 2:
                mode = literal(node.args[1])
            for kw in node.keywords:
                if kw.arg == "mode":
                    mode = literal(kw.value)
            if mode is None and (len(node.args) >= 2 or any(k.arg == "mode" for k in node.keywords)):
                mode = "w"  # a computed mode may write
            if not mode or not any(c in mode for c in "wax+"):
                return
            target = literal(node.args[0]) if node.args else None
        else:
            target = None
            if isinstance(node.func, ast.Attribute):
                inner = node.func.value
                if isinstance(inner, ast.Call) and inner.args:
                    target = literal(inner.args[0])
        path = target or "(computed)"
        self.writes.append({"path": path, "line": node.lineno})
        self.flag("write", node, f"writes the file {path}")

    def visit_Attribute(self, node):
        if node.attr in HIDING:
            self.flag("dynamic", node, f"uses {node.attr}, which can hide what the code does")
        name = self.resolve(dotted(node))
        if name == "sys.modules":
            self.flag("dynamic", node, "reaches modules through sys.modules")
        self.generic_visit(node)

    def visit_Name(self, node):
        if node.id in HIDING:
            self.flag("dynamic", node, f"uses {node.id}, which can hide what the code does")
        self.generic_visit(node)


def main():
    code = sys.stdin.read()
    out = {"parsed": False, "error": "", "imports": [], "flags": [], "writes": [], "deletes": []}
    try:
        tree = ast.parse(code)
    except (SyntaxError, ValueError, MemoryError, RecursionError) as exc:
        out["error"] = f"{type(exc).__name__}: {exc}"
        print(json.dumps(out))
        return
    a = Analyzer()
    try:
        a.visit(tree)
    except RecursionError:
        out["error"] = "the code is nested too deeply to analyse"
        print(json.dumps(out))
        return
    out.update(parsed=True, imports=a.imports, flags=a.flags, writes=a.writes, deletes=a.deletes)
    print(json.dumps(out))


if __name__ == "__main__":
    main()
