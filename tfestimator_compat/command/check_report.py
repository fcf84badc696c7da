"""What `tfestimator-compat check` found, summed up, and printed as text or JSON.

`Report` holds the findings, the imports and the files that could not be
checked; its summary counts them per status and per API and gives each file a
verdict, the worst of its own and of what it imports. `format_text` prints one
line per finding and then the summary, `format_json` the same as a stable
schema for tools, `format_summary` Markdown for a ticket. Guide links are relative to
`GUIDE_ROOT`, the package's folder, where `migration_guide/` ships.
"""

import dataclasses
import json
import os
from typing import Dict
from typing import List
from typing import Optional
from typing import Tuple

from tfestimator_compat.command import check_imports
from tfestimator_compat.shim import api_surface

SCHEMA_VERSION = 1
# Where the links of the report lead: `migration_guide/` ships inside the package.
GUIDE_ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
# Per-file verdicts.
RUNS_UNCHANGED = "runs unchanged"
NEEDS_TF1 = "needs run --tf1"
DOES_NOT_RUN = "does not run"
NOT_CHECKED = "not checked"
# From best to worst: a file gets the worst of its own and of what it imports.
VERDICTS = (RUNS_UNCHANGED, NEEDS_TF1, NOT_CHECKED, DOES_NOT_RUN)
_TF1 = api_surface.SUPPORTED_WITH_TF1
_NAMES_PER_VERDICT = 5


@dataclasses.dataclass(frozen=True)
class Finding:
    """One use of a known API: where, what, and what to do about it."""

    path: str
    line: int
    column: int
    cell: Optional[int]
    written: str
    name: str
    status: str
    replacement: str
    guide: str


@dataclasses.dataclass(frozen=True)
class FileError:
    """A file, or a notebook cell, that could not be checked.

    `kind` is "syntax" (reported, the run goes on) or "unreadable" (exit 2).
    """

    path: str
    kind: str
    message: str
    line: Optional[int] = None
    cell: Optional[int] = None


@dataclasses.dataclass
class Report:
    """What a run found: the files checked, the findings, the files it could not check."""

    files: List[str] = dataclasses.field(default_factory=list)
    findings: List[Finding] = dataclasses.field(default_factory=list)
    errors: List[FileError] = dataclasses.field(default_factory=list)
    imports: List[check_imports.Import] = dataclasses.field(default_factory=list)

    def exit_status(self) -> int:
        """2 for unreadable paths, else 1 when something is not supported, else 0."""
        if any(error.kind == "unreadable" for error in self.errors):
            return 2
        if any(f.status == api_surface.NOT_SUPPORTED for f in self.findings):
            return 1
        return 0

    def summary(self) -> dict:
        """Counts (files, findings by status, unparsed and unreadable files), per API, per file."""
        by_status = {status: 0 for status in api_surface.STATUSES}
        for finding in self.findings:
            by_status[finding.status] += 1
        return {
            "files": len(self.files),
            "findings": len(self.findings),
            "by_status": by_status,
            "unparsed": sum(error.kind == "syntax" for error in self.errors),
            "unreadable": sum(error.kind == "unreadable" for error in self.errors),
            "by_api": self._by_api(),
            "by_file": self._verdicts(),
        }

    def _by_api(self) -> List[dict]:
        """Each API used: `name, status, count, guide, files`; what blocks a run first, then
        most used."""
        counts: Dict[str, int] = {}
        symbols: Dict[str, Finding] = {}
        files: Dict[str, Dict[str, None]] = {}
        for finding in self.findings:
            counts[finding.name] = counts.get(finding.name, 0) + 1
            symbols.setdefault(finding.name, finding)
            files.setdefault(finding.name, {})[finding.path] = None
        severity = {status: i for i, status in enumerate(reversed(api_surface.STATUSES))}
        names = sorted(counts, key=lambda n: (severity[symbols[n].status], -counts[n], n))
        return [
            {
                "name": n,
                "status": symbols[n].status,
                "count": counts[n],
                "guide": symbols[n].guide,
                "files": list(files[n]),
            }
            for n in names
        ]

    def _paths(self) -> List[str]:
        """The files checked, then those that could not be read, each once."""
        unread = [error.path for error in self.errors if error.path not in self.files]
        return list(dict.fromkeys([*self.files, *unread]))

    def _verdicts(self) -> List[dict]:
        """A verdict per file: the worst of its own and of every checked file it imports.

        `because` names what decides it (unsupported APIs, TF1 names, parse errors);
        `via` is the chain of imports that brings it in, empty when the file itself does.
        """
        paths = self._paths()
        findings: Dict[str, List[Finding]] = {path: [] for path in paths}
        for finding in self.findings:
            findings.setdefault(finding.path, []).append(finding)
        errors: Dict[str, List[str]] = {path: [] for path in paths}
        for error in self.errors:
            errors[error.path].append(_reason(error))
        own = {path: _own_verdict(findings[path], errors[path]) for path in paths}
        rank = {path: VERDICTS.index(own[path][0]) for path in paths}
        edges = check_imports.import_edges(paths, self.imports)
        entries = []
        for path, chain in check_imports.worst_import_chains(edges, rank).items():
            verdict, because = own[chain[-1].target if chain else path]
            entries.append(
                {
                    "path": path,
                    "findings": len(findings[path]),
                    "verdict": verdict,
                    "because": because,
                    "via": [_step(edge) for edge in chain],
                }
            )
        return entries


def _own_verdict(findings: List[Finding], errors: List[str]) -> Tuple[str, List[str]]:
    """What a file's own uses and parse errors decide, and the names or errors that do."""
    names = {
        status: list(dict.fromkeys(f.name for f in findings if f.status == status))
        for status in (api_surface.NOT_SUPPORTED, _TF1)
    }
    for verdict, because in (
        (DOES_NOT_RUN, names[api_surface.NOT_SUPPORTED]),
        (NOT_CHECKED, errors),
        (NEEDS_TF1, names[_TF1]),
    ):
        if because:
            return verdict, because
    return RUNS_UNCHANGED, []


def _step(edge: check_imports.Edge) -> dict:
    """One import of a verdict's `via` chain: what was imported, where, and the file."""
    statement = edge.statement
    return {
        "import": edge.written,
        "line": statement.line,
        "cell": statement.cell,
        "path": edge.target,
    }


def _where(line: Optional[int], cell: Optional[int]) -> str:
    """`cell 2, line 3`, or the part of it that is known."""
    cell_part = [f"cell {cell}"] if cell is not None else []
    return ", ".join(cell_part + ([f"line {line}"] if line is not None else []))


def _reason(error: FileError) -> str:
    """Why a file was not checked, and where: `line 3: cannot parse: invalid syntax`."""
    where = _where(error.line, error.cell)
    return f"{where}: {error.message}" if where else error.message


def _location(path: str, line: Optional[int], cell: Optional[int]) -> str:
    where = f"{path}[cell {cell}]" if cell is not None else path
    return f"{where}:{line}" if line is not None else where


def format_text(report: Report) -> str:
    """One line per finding, `path:line: name [status] -> replacement (guide)`, then a summary.

    In notebooks the location reads `path[cell N]:line`, N counting all cells from 1.
    Files that did not parse get a `warning:` line where their findings would be.
    """
    order = {path: i for i, path in enumerate(report.files)}
    entries = [
        (
            (order.get(f.path, len(order)), f.cell or 0, f.line),
            f"{_location(f.path, f.line, f.cell)}: {f.name} [{f.status}] -> {f.replacement} "
            f"({f.guide})",
        )
        for f in report.findings
    ]
    entries += [
        (
            (order.get(e.path, len(order)), e.cell or 0, e.line or 0),
            f"{_location(e.path, e.line, e.cell)}: warning: not checked, {e.message}",
        )
        for e in report.errors
        if e.kind == "syntax"
    ]
    summary = report.summary()
    lines = [line for _, line in sorted(entries, key=lambda entry: entry[0])]
    return "\n".join([*lines, *_summary_lines(summary), _totals(summary)]) + "\n"


def _summary_lines(summary: dict) -> List[str]:
    """The APIs used (count, status, name), then one verdict per file, then where the guide is."""
    lines = ["", "APIs used (count, status, name):"]
    width = max([len(status) for status in api_surface.STATUSES])
    lines += [f"{a['count']:6d}  {a['status']:<{width}}  {a['name']}" for a in summary["by_api"]]
    lines.append("Files:")
    for entry in summary["by_file"]:
        because = entry["because"][:_NAMES_PER_VERDICT]
        more = len(entry["because"]) - len(because)
        reason = ", ".join(because) + (f" (+{more} more)" if more else "")
        via = ", ".join(
            f"import {step['import']} ({_where(step['line'], step['cell'])}) -> {step['path']}"
            for step in entry["via"]
        )
        lines.append(
            f"  {entry['path']}: {entry['findings']} finding(s); {entry['verdict']}"
            + (f" via {via}" if via else "")
            + (f": {reason}" if reason else "")
        )
    lines.append(f"Guide links (migration_guide/...) are relative to {GUIDE_ROOT}")
    return lines


def _totals(summary: dict) -> str:
    counts = ", ".join(f"{n} {status}" for status, n in summary["by_status"].items())
    text = f"{summary['files']} file(s) checked, {summary['findings']} finding(s): {counts}"
    if summary["unparsed"]:
        text += f"; {summary['unparsed']} file(s) or cell(s) not parsed"
    if summary["unreadable"]:
        text += f"; {summary['unreadable']} path(s) unreadable"
    return text


def format_json(report: Report) -> str:
    """The report as JSON: `{"version", "guide_root", "findings", "errors", "summary"}`.

    Each finding has `path, line, column, cell, written, name, status,
    replacement, guide` (`cell` is null outside notebooks; `guide` is relative
    to `guide_root`); each error `path, kind, message, line, cell`; the summary
    `files, findings, by_status, unparsed, unreadable`, `by_api` (a list of
    `name, status, count, guide, files`) and `by_file` (a list of `path,
    findings, verdict, because, via`; `via` is the chain of imports, each
    `import, line, cell, path`, that brings in what decides the verdict).
    """
    document = {
        "version": SCHEMA_VERSION,
        "guide_root": GUIDE_ROOT,
        "findings": [dataclasses.asdict(f) for f in report.findings],
        "errors": [dataclasses.asdict(e) for e in report.errors],
        "summary": report.summary(),
    }
    return json.dumps(document, indent=2) + "\n"


def format_summary(report: Report) -> str:
    """A summary to paste into a ticket, in Markdown: files by verdict, then the APIs in the way.

    Files come worst verdict first, each named with the file that decides it when
    an import brings that in, and with why when it was not checked. Each API that
    blocks a run, then each that needs `run --tf1`, comes with its count, the files
    that use it, and its section of the migration guide.
    """
    summary = report.summary()
    by_verdict = {v: [e for e in summary["by_file"] if e["verdict"] == v] for v in VERDICTS[::-1]}
    counts = ", ".join(f"{len(entries)} {v}" for v, entries in by_verdict.items() if entries)
    lines = ["# tfestimator-compat check", "", f"{len(summary['by_file'])} file(s): {counts}"]
    lines += ["", "## Files by verdict"]
    for verdict, entries in by_verdict.items():
        if entries:
            lines += ["", f"### {verdict} ({len(entries)})", ""]
            lines += [_summary_file(entry) for entry in entries]
    for heading, status in (
        ("## APIs that block a run", api_surface.NOT_SUPPORTED),
        ("## APIs that need `run --tf1`", _TF1),
    ):
        apis = [api for api in summary["by_api"] if api["status"] == status]
        lines += ["", heading, ""]
        lines += [_summary_api(api) for api in apis] or ["None."]
    lines += ["", f"Guide links are relative to {GUIDE_ROOT}"]
    return "\n".join(lines) + "\n"


def _summary_file(entry: dict) -> str:
    """`- `path``, with the file that decides its verdict, or why it was not checked.

    Paths are in backticks so that Markdown keeps `__init__.py` as written."""
    if entry["via"]:
        return f"- `{entry['path']}` (via `{entry['via'][-1]['path']}`)"
    if entry["verdict"] == NOT_CHECKED:
        return f"- `{entry['path']}`: {'; '.join(entry['because'])}"
    return f"- `{entry['path']}`"


def _summary_api(api: dict) -> str:
    uses = f"{api['count']} use" + ("s" if api["count"] != 1 else "")
    files = ", ".join(f"`{path}`" for path in api["files"])
    return f"- `{api['name']}` ({uses}): {files}. Guide: {api['guide']}"
