"""The import graph of PaperChat's packages, read with `ast`, and the rules it must keep.

`python eval/import_graph.py` prints, for each module of rag/, the peers it imports and the
names it takes from each, then any rule broken (exit 1). tests/test_architecture.py asserts
the same rules, so a change that breaks one fails the suite.

Rules:
- a name is imported from the module that defines it, never from a peer that only imported
  it itself (a name lives where its job is; nothing is reached *through* a third module);
- nothing reaches the embedder through the index (`<...>.index.embedder`, `index._embedder`);
- the library (rag/) imports no UI (gradio) and no evaluation code;
- no import cycle among rag/ modules, counting imports in functions and under TYPE_CHECKING;
- no rag/ file over MAX_LINES lines (LONG_FILES: the ones still over, which may only shrink);
- LlamaIndex loads with the parts whose job needs it (LLAMA_MODULES): any other rag/ module
  imports it, or one of those, only where it is used (its import costs over a second, and an
  offline question never needs it).
"""

from __future__ import annotations

import ast
import sys
from dataclasses import dataclass
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
PACKAGES = ("rag", "ui", "eval")
# LlamaIndex's faces (retriever, query engine, embedding adapter), its LLM, the model answerer.
LLAMA_MODULES = ("rag.app.llama", "rag.nodes", "rag.app.llm", "rag.answers.generate")


@dataclass(frozen=True)
class Import:
    """One `from X import name` between project modules."""

    importer: str
    module: str
    name: str
    line: int


def module_name(path: Path, root: Path = REPO) -> str:
    """Dotted module name of a file under the repository root."""
    parts = list(path.relative_to(root).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


def _resolve(importer: str, node: ast.ImportFrom, is_package: bool) -> str:
    if not node.level:
        return node.module or ""
    base = importer.split(".")
    # A module's own package is its name minus the last part; a package's is itself.
    base = base if is_package else base[:-1]
    base = base[: len(base) - (node.level - 1)]
    return ".".join([*base, node.module] if node.module else base)


def project_files(root: Path = REPO, packages: tuple[str, ...] = PACKAGES) -> list[Path]:
    """Every Python file of the project's packages."""
    return sorted(p for pkg in packages for p in (root / pkg).rglob("*.py"))


def imports(files: list[Path], root: Path = REPO) -> list[Import]:
    """Every `from <project module> import name` in the files (type-only imports included)."""
    out: list[Import] = []
    for path in files:
        name = module_name(path, root)
        tree = ast.parse(path.read_text(encoding="utf-8"), filename=str(path))
        for node in ast.walk(tree):
            if isinstance(node, ast.ImportFrom):
                target = _resolve(name, node, path.name == "__init__.py")
                if target.split(".")[0] in PACKAGES:
                    out.extend(Import(name, target, a.name, node.lineno) for a in node.names)
    return out


def definitions(path: Path) -> set[str]:
    """Names a module defines at top level (functions, classes, assignments)."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    names: set[str] = set()
    for node in tree.body:
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef):
            names.add(node.name)
        elif isinstance(node, ast.Assign):
            names.update(t.id for t in node.targets if isinstance(t, ast.Name))
        elif isinstance(node, ast.AnnAssign) and isinstance(node.target, ast.Name):
            names.add(node.target.id)
    return names


def _file_of(module: str, root: Path) -> Path | None:
    path = root.joinpath(*module.split("."))
    for candidate in (path.with_suffix(".py"), path / "__init__.py"):
        if candidate.is_file():
            return candidate
    return None


def misplaced(found: list[Import], root: Path = REPO) -> list[str]:
    """Imports that take a name from a module which does not define it (a re-export)."""
    problems = []
    defined: dict[str, set[str]] = {}
    for imp in found:
        path = _file_of(imp.module, root)
        if path is None:
            continue  # a submodule imported by name (`from eval import metrics`)
        if _file_of(f"{imp.module}.{imp.name}", root) is not None:
            continue
        names = defined.setdefault(imp.module, definitions(path))
        if imp.name not in names:
            problems.append(
                f"{imp.importer}:{imp.line} imports {imp.name!r} from {imp.module}, "
                "which does not define it"
            )
    return problems


def reaches_through(files: list[Path], root: Path = REPO) -> list[str]:
    """Attribute chains that reach the embedder through an index."""
    problems = []
    for path in files:
        tree = ast.parse(path.read_text(encoding="utf-8"))
        for node in ast.walk(tree):
            if not (isinstance(node, ast.Attribute) and node.attr in ("embedder", "_embedder")):
                continue
            owner = node.value
            owner_name = getattr(owner, "attr", None) or getattr(owner, "id", "")
            inside_index = path.name == "index.py" and owner_name == "self"
            if "index" in owner_name.lower() and not inside_index:
                problems.append(
                    f"{module_name(path, root)}:{node.lineno} reaches "
                    f"{owner_name}.{node.attr}: ask the pipeline for its embedder"
                )
    return problems


def library_leaks(found: list[Import], files: list[Path], root: Path = REPO) -> list[str]:
    """rag/ importing the UI, the evaluation or gradio."""
    problems = [
        f"{i.importer}:{i.line} imports {i.module} (the library must not depend on it)"
        for i in found
        if i.importer.startswith("rag") and i.module.split(".")[0] in ("ui", "eval")
    ]
    for path in files:
        if module_name(path, root).split(".")[0] != "rag":
            continue
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            mods = []
            if isinstance(node, ast.Import):
                mods = [a.name for a in node.names]
            elif isinstance(node, ast.ImportFrom) and not node.level:
                mods = [node.module or ""]
            mods = [m for m in mods if m.split(".")[0] == "gradio"]
            problems.extend(f"{module_name(path, root)}:{node.lineno} imports {m}" for m in mods)
    return problems


def _eager_imports(path: Path, root: Path) -> set[str]:
    """Modules a file imports when it is itself imported (top level, not under TYPE_CHECKING)."""
    name = module_name(path, root)
    out: set[str] = set()
    for node in ast.parse(path.read_text(encoding="utf-8")).body:
        if isinstance(node, ast.Import):
            out.update(a.name for a in node.names)
        elif isinstance(node, ast.ImportFrom):
            target = _resolve(name, node, path.name == "__init__.py")
            # `from . import charts` imports a submodule.
            out.update([target, *(f"{target}.{a.name}" for a in node.names)])
    return out


def eager_llama(files: list[Path], root: Path = REPO) -> list[str]:
    """rag/ modules outside LLAMA_MODULES that load llama_index on import, directly or through
    a peer they import at top level."""
    eager = {
        module_name(p, root): _eager_imports(p, root)
        for p in files
        if module_name(p, root).split(".")[0] == "rag"
    }

    def chain(module: str, seen: set[str]) -> list[str] | None:
        for imported in sorted(eager.get(module, ())):
            if imported.split(".")[0] == "llama_index":
                return [imported]
            if imported in eager and imported not in seen:
                seen.add(imported)
                rest = chain(imported, seen)
                if rest is not None:
                    return [imported, *rest]
        return None

    problems = []
    for module in sorted(eager):
        found = None if module in LLAMA_MODULES else chain(module, {module})
        if found is not None:
            problems.append(
                f"{module} loads llama_index on import ({' -> '.join([module, *found])}): "
                "import it where it is used"
            )
    return problems


def graph(found: list[Import], package: str = "rag") -> dict[str, dict[str, list[str]]]:
    """importer -> imported peer -> names, for the modules of one package."""
    out: dict[str, dict[str, list[str]]] = {}
    for imp in found:
        if imp.importer.split(".")[0] == package and imp.module.split(".")[0] == package:
            names = out.setdefault(imp.importer, {}).setdefault(imp.module, [])
            if imp.name not in names:
                names.append(imp.name)
    return dict(sorted(out.items()))


def module_graph(
    found: list[Import], root: Path = REPO, package: str = "rag"
) -> dict[str, set[str]]:
    """importer -> modules of the package it imports, at any level (top, in a function, under
    TYPE_CHECKING); `from . import x` counts as importing the submodule x."""
    edges: dict[str, set[str]] = {}
    for imp in found:
        if imp.importer.split(".")[0] != package or imp.module.split(".")[0] != package:
            continue
        sub = f"{imp.module}.{imp.name}"
        target = sub if _file_of(sub, root) is not None else imp.module
        if target != imp.importer:
            edges.setdefault(imp.importer, set()).add(target)
    return edges


def cycles(found: list[Import], root: Path = REPO, package: str = "rag") -> list[str]:
    """Every import cycle among the package's modules (strongly connected components)."""
    edges = module_graph(found, root, package)
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    components: list[list[str]] = []

    def visit(v: str) -> None:  # Tarjan's algorithm
        index[v] = low[v] = len(index)
        stack.append(v)
        on_stack.add(v)
        for w in sorted(edges.get(v, ())):
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on_stack:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            component = []
            while True:
                w = stack.pop()
                on_stack.discard(w)
                component.append(w)
                if w == v:
                    break
            if len(component) > 1:
                components.append(sorted(component))

    for v in sorted(edges):
        if v not in index:
            visit(v)
    return [f"import cycle among {len(c)} modules: {', '.join(c)}" for c in components]


# No module of rag/ may be longer than this; the files listed in LONG_FILES are the ones that
# still are (each with its length now), to be split: the list may only shrink.
MAX_LINES = 700
LONG_FILES: dict[str, int] = {}


def long_files(root: Path = REPO, package: str = "rag") -> list[str]:
    """rag/ files over MAX_LINES (or, for LONG_FILES, over their recorded length)."""
    out = []
    for path in sorted((root / package).rglob("*.py")):
        rel = path.relative_to(root).as_posix()
        n = len(path.read_text(encoding="utf-8").splitlines())
        allowed = max(MAX_LINES, LONG_FILES.get(rel, 0) if root == REPO else 0)
        if n > allowed:
            out.append(f"{rel} has {n} lines (at most {allowed})")
    return out


def problems(root: Path = REPO, extra: tuple[str, ...] = ("tests",)) -> list[str]:
    """Every broken rule in the packages (and, for imports and reach-through, the tests)."""
    files = project_files(root)
    checked = files + [p for d in extra for p in sorted((root / d).glob("*.py"))]
    found = imports(checked, root)
    return (
        misplaced(found, root)
        + reaches_through(checked, root)
        + library_leaks(found, files, root)
        + eager_llama(files, root)
        + cycles(imports(files, root), root)
        + long_files(root)
    )


def main() -> int:
    """Print the rag/ import graph and the broken rules."""
    found = imports(project_files())
    for importer, peers in graph(found).items():
        print(importer)
        for module, names in sorted(peers.items()):
            print(f"  -> {module}: {', '.join(names)}")
    broken = problems()
    print("\nrules: " + ("all kept" if not broken else f"{len(broken)} broken"))
    for p in broken:
        print("  " + p)
    return 1 if broken else 0


if __name__ == "__main__":
    sys.exit(main())
