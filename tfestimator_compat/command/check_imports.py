"""Which checked files a checked file imports, found the way Python would find them.

`check` gives a file the worst verdict of what it imports: a trainer that uses
only what the shim runs still fails when a module it imports does not run.
Nothing is imported or run: each import statement is matched against the paths
of the files being checked, so what lies outside them (the standard library,
installed packages) is not followed.

An absolute import (`import pkg.mod`, `from pkg import mod`) resolves from the
importer's folder or the nearest folder above it that holds the module, as
`sys.path` does when a program runs from its project. A module found only in a
folder beside the importer is followed for dotted names (`pkg.mod`), never for
a single name such as `utils` that many programs of one tree have. A relative
import resolves against the importer's package. Importing `a.b.c` runs
`a/__init__.py` and `a/b/__init__.py` first, so those count as imported too.
Notebooks import modules but are never imported.
"""

import collections
import dataclasses
import os
from typing import Dict
from typing import Iterator
from typing import List
from typing import Optional
from typing import Sequence
from typing import Tuple

_Parts = Tuple[str, ...]


@dataclasses.dataclass(frozen=True)
class Import:
    """One import statement of a checked file: `from <level dots><module> import <names>`.

    `import a.b` has `level` 0, `module` "a.b" and no names.
    """

    path: str
    line: int
    cell: Optional[int]
    level: int
    module: str
    names: Tuple[str, ...] = ()


@dataclasses.dataclass(frozen=True)
class Edge:
    """`statement` makes its file import `target` (a checked path), named `written`."""

    statement: Import
    written: str
    target: str


def _parts(path: str) -> _Parts:
    return tuple(os.path.normpath(os.path.abspath(path)).split(os.sep))


class ModuleIndex:
    """The checked `.py` files by the module path each one defines."""

    def __init__(self, files: Sequence[str]) -> None:
        self._files: Dict[_Parts, str] = {}
        self._by_name: Dict[str, List[_Parts]] = collections.defaultdict(list)
        for path in files:
            if not path.endswith(".py"):
                continue
            parts = _parts(path[: -len(".py")])
            if parts[-1] == "__init__":
                parts = parts[:-1]
            if parts not in self._files or path.endswith("__init__.py"):
                self._files[parts] = path  # a package wins over a module, as in Python
            if parts not in self._by_name[parts[-1]]:
                self._by_name[parts[-1]].append(parts)

    def edges(self, statement: Import) -> List[Edge]:
        """The checked files `statement` imports, each once: what it names, then the
        packages above (for a relative import, down to the importer's own package)."""
        edges: Dict[str, Edge] = {}
        prefix = "." * statement.level
        last = 0 if statement.level else 1
        for folder, dotted in self._targets(statement):
            for end in range(len(dotted), last - 1, -1):
                target = self._files.get(folder + dotted[:end])
                if target is not None and target not in edges:
                    written = prefix + ".".join(dotted[:end])
                    edges[target] = Edge(statement, written, target)
        return list(edges.values())

    def _targets(self, statement: Import) -> Iterator[Tuple[_Parts, _Parts]]:
        """(folder, dotted) for each module `statement` may name: a submodule per
        imported name, then the module itself."""
        module = tuple(statement.module.split(".")) if statement.module else ()
        importer = _parts(os.path.dirname(statement.path))
        for dotted in [module + (name,) for name in statement.names] + [module]:
            if statement.level:
                yield importer[: len(importer) - statement.level + 1], dotted
            elif dotted:
                folder = self._root(dotted, importer)
                if folder is not None:
                    yield folder, dotted

    def _root(self, dotted: _Parts, importer: _Parts) -> Optional[_Parts]:
        """The folder `dotted` would be imported from: the nearest one at or above the
        importer's, else, for a dotted name, the one sharing most of its path."""
        roots = [
            parts[: -len(dotted)]
            for parts in self._by_name.get(dotted[-1], [])
            if len(parts) > len(dotted) and parts[-len(dotted) :] == dotted
        ]
        above = [root for root in roots if importer[: len(root)] == root]
        if above:
            return max(above, key=len)
        if len(dotted) < 2 or not roots:
            return None
        return max(roots, key=lambda root: len(os.path.commonprefix([root, importer])))


def import_edges(files: Sequence[str], imports: Sequence[Import]) -> Dict[str, List[Edge]]:
    """Each checked file's imports of other checked files, in source order."""
    index = ModuleIndex(files)
    edges: Dict[str, List[Edge]] = {path: [] for path in files}
    for statement in imports:
        found = edges.get(statement.path)
        if found is None:
            continue
        known = {edge.target for edge in found}
        for edge in index.edges(statement):
            if edge.target != statement.path and edge.target not in known:
                found.append(edge)
                known.add(edge.target)
    return edges


def worst_import_chains(
    edges: Dict[str, List[Edge]], rank: Dict[str, int]
) -> Dict[str, List[Edge]]:
    """For each file, the chain of imports to the nearest file of the worst rank it reaches.

    The chain is empty when the file's own rank is the worst. Which rank each file
    reaches comes from one backward search per rank (ranks are few, files many);
    only the files an import makes worse are then searched forward for their chain.
    """
    importers: Dict[str, List[str]] = collections.defaultdict(list)
    for path, found in edges.items():
        for edge in found:
            importers[edge.target].append(path)
    worst = {path: rank.get(path, 0) for path in edges}
    for level in sorted(set(worst.values()), reverse=True):
        queue = collections.deque(path for path in edges if rank.get(path, 0) == level)
        seen = set(queue)
        while queue:
            for importer in importers[queue.popleft()]:
                if importer not in seen:
                    seen.add(importer)
                    worst[importer] = max(worst[importer], level)
                    queue.append(importer)
    return {
        path: _chain(edges, rank, path, worst[path]) if worst[path] > rank.get(path, 0) else []
        for path in edges
    }


def _chain(
    edges: Dict[str, List[Edge]], rank: Dict[str, int], start: str, worst: int
) -> List[Edge]:
    """The shortest chain of imports from `start` to a file of rank `worst`."""
    came_by: Dict[str, Optional[Edge]] = {start: None}
    queue = collections.deque([start])
    while queue:
        path = queue.popleft()
        if rank.get(path, 0) == worst:
            chain = []
            while came_by[path] is not None:
                chain.append(came_by[path])
                path = came_by[path].statement.path
            return chain[::-1]
        for edge in edges.get(path, []):
            if edge.target not in came_by:
                came_by[edge.target] = edge
                queue.append(edge.target)
    raise AssertionError(f"{start} reaches no file of rank {worst}")
