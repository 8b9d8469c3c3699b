"""`--fix`: rounds of pick non-overlapping edits → verify with JAX → apply → re-parse → re-lint.

Safe fixes apply directly; verified fixes apply only after `jaxlint.verify` proved them (or with
`--unsafe-fixes`); suggestions only with `--unsafe-fixes`. A result that does not parse is
reverted. The loop stops when a round applies nothing, or after MAX_ROUNDS.
"""

from __future__ import annotations

import difflib
from dataclasses import replace

import libcst as cst

from jaxlint.analysis.project import ParsedModule
from jaxlint.analysis.project_view import ProjectView
from jaxlint.analysis.scope import ModuleIndex
from jaxlint.diagnostics import Diagnostic, Fix
from jaxlint.engine import suppression
from jaxlint.engine.config import Config
from jaxlint.engine.edits import Edit
from jaxlint.engine.lint import (
    TOO_DEEP,
    AnalyzedSource,
    LintResult,
    analyze_module,
    check_source,
    enabled_rules,
    file_problems,
    to_diagnostics,
)
from jaxlint.engine.rule import Finding, Rule
from jaxlint.fixes.apply import edited_source
from jaxlint.fixes.status import (
    Attempt,
    FindingKey,
    finding_key,
    fix_status,
    fix_status_for_check,
)

MAX_ROUNDS = 8
NO_JAX = "not verified: install jaxlint[verify]"


def lint_source(
    source: str,
    path: str,
    config: Config,
    *,
    fix: bool = False,
    unsafe_fixes: bool = False,
    verify: bool = True,
    project: ProjectView | None = None,
    parsed: ParsedModule | None = None,
) -> LintResult:
    """Lint one source text; with `fix`, also rewrite it.

    `project` carries what the project index found for this file (functions other modules
    trace); without it the file is analysed alone. `parsed` is the project index's parse of this
    very text: a check starts from it, and so does a fix, which is given it only when the
    index's own check of the text found something to fix (the fix analyses the whole module).
    """
    try:
        return _lint_source(source, path, config, fix, unsafe_fixes, verify, project, parsed)
    except RecursionError:  # `ast`, libcst and the analysis all recurse over the tree
        return LintResult(file_problems(path, TOO_DEEP, config))


def _lint_source(
    source: str,
    path: str,
    config: Config,
    fix: bool,
    unsafe_fixes: bool,
    verify: bool,
    project: ProjectView | None,
    parsed: ParsedModule | None,
) -> LintResult:
    if fix and parsed is not None:
        # the project index's check of this text found edits: fix it from the index's parse
        index: ModuleIndex | None = parsed.index
    else:
        checked = check_source(
            source, path, config, project=project, fixes=fix_status_for_check, parsed=parsed
        )
        # With no edit to make, fixing reports what checking did (tests/test_check_fix_agree.py);
        # it would only add a libcst tree of the whole file, the largest cost on a big module.
        if not fix or not any(isinstance(f.fix, Edit) for f in checked.findings):
            return checked
        index = checked.index
    rules = enabled_rules(config, path)
    return fix_source(
        source,
        path,
        config,
        rules,
        unsafe_fixes=unsafe_fixes,
        verify=verify,
        project=project,
        index=index,
    )


def fix_source(
    source: str,
    path: str,
    config: Config,
    rules: list[type[Rule]],
    *,
    unsafe_fixes: bool = False,
    verify: bool = True,
    project: ProjectView | None = None,
    index: ModuleIndex | None = None,
) -> LintResult:
    """Apply every fix that may be applied; report applied fixes and what is left. `index`:
    a check's index of `source`, which the first analysis starts from."""
    current = source
    attempts: dict[FindingKey, Attempt] = {}
    applied_records: list[Diagnostic] = []
    analyzed, module = analyze_module(current, path, config, rules, project, index)
    for _ in range(MAX_ROUNDS):  # a text is analyzed once: again only after it changed
        if module is None:
            break
        chosen = _choose(analyzed, attempts, unsafe_fixes)
        if not chosen:
            break
        outcome = _decide(chosen, module, current, path, verify, unsafe_fixes, file_source=source)
        to_apply = []
        for finding, edit, attempt in outcome:
            attempt.source = current
            attempts[finding_key(finding)] = attempt
            if attempt.applied and edit is not None:
                to_apply.append((finding, edit))
        if not to_apply:
            continue
        candidate = edited_source(module, [edit for _, edit in to_apply], current)
        # the edited text is parsed once: its analysis is the next round's
        next_analyzed, next_module = analyze_module(candidate, path, config, rules, project)
        if next_module is None:
            for finding, _ in to_apply:
                attempts[finding_key(finding)] = Attempt(
                    False, "result did not parse", None, current
                )
            continue
        to_original = _line_map(current, source)
        for finding, edit in to_apply:
            attempt = attempts[finding_key(finding)]
            applied_records.append(_record(finding, path, attempt, to_original, edit=edit))
        applied_records += _covered_records(analyzed, to_apply, attempts, path, to_original)
        current = candidate
        analyzed, module = next_analyzed, next_module

    remaining = to_diagnostics(analyzed, path, config, fixes=lambda f: fix_status(f, attempts))
    diagnostics = sorted(applied_records + remaining, key=Diagnostic.sort_key)
    return LintResult(diagnostics, fixed_source=current if current != source else None)


def _choose(
    analyzed: AnalyzedSource,
    attempts: dict[FindingKey, Attempt],
    unsafe_fixes: bool,
) -> list[tuple[Finding, Edit]]:
    """Non-overlapping edits to try this round, local fixes first (they unblock loop rewrites)."""
    candidates = []
    for finding in analyzed.findings:
        if not isinstance(finding.fix, Edit):
            continue
        if finding.fix_kind == "suggestion" and not unsafe_fixes:
            continue
        previous = attempts.get(finding_key(finding))
        if previous is not None and previous.source == analyzed.source:
            continue  # tried on this very text: verification failed or it did not parse
        if suppression.is_suppressed(
            finding.rule.code, finding.span.line, analyzed.lines, finding.header_lines
        ):
            continue
        candidates.append(finding)
    candidates.sort(key=lambda f: (_PRIORITY.get(f.rule.code[:4], 5), f.span.line))
    chosen: list[tuple[Finding, Edit]] = []
    taken: list[tuple[int, int]] = []
    verified_targets: set[str] = set()
    defined: set[str] = set()
    for finding in candidates:
        edit = finding.fix
        assert isinstance(edit, Edit)
        region = finding.fix_region or (finding.span.line, finding.span.end_line)
        if any(region[0] <= end and start <= region[1] for start, end in taken):
            continue
        if defined.intersection(edit.module_names):
            continue  # the next round picks another fresh name against the edited text
        defined.update(edit.module_names)
        if finding.fix_kind == "verified" and edit.verify_target is not None:
            # each edit is verified alone: two in one function wait for separate rounds
            if edit.verify_target in verified_targets:
                continue
            verified_targets.add(edit.verify_target)
        taken.append(region)
        chosen.append((finding, edit))
    return chosen


_PRIORITY = {"JAX2": 0, "JAX1": 1, "JAX3": 2}


def attempt_fix(
    finding: Finding, edit: Edit, module: cst.Module, source: str, path: str
) -> Attempt:
    """One finding's edit, decided alone as `--fix` would (verified with JAX when it must be):
    the language server's "verify and apply" action."""
    ((_, _, attempt),) = _decide([(finding, edit)], module, source, path, True, False)
    return attempt


def _decide(
    chosen: list[tuple[Finding, Edit]],
    module: cst.Module,
    source: str,
    path: str,
    verify: bool,
    unsafe_fixes: bool,
    file_source: str | None = None,
) -> list[tuple[Finding, Edit | None, Attempt]]:
    """Which chosen edits to apply: safe ones, and verified ones that JAX proved.

    `file_source` is the file as read: signatures recorded by `--examples-from` are cached under
    its hash, so they serve every round of this run.
    """
    decided: list[tuple[Finding, Edit | None, Attempt]] = []
    to_verify: list[tuple[Finding, Edit]] = []
    for finding, edit in chosen:
        if finding.fix_kind != "verified":
            decided.append((finding, edit, Attempt(True, None, None)))
        elif not edit.verify_target:
            note = "not verified: only code inside a named function or method can be run"
            decided.append((finding, edit, Attempt(unsafe_fixes, note, None)))
        elif not verify:
            note = "not verified (--no-verify)"
            decided.append((finding, edit, Attempt(unsafe_fixes, note, None)))
        else:
            to_verify.append((finding, edit))
    if not to_verify:
        return decided

    from jaxlint.verify import VerifyRequest, jax_available
    from jaxlint.verify import verify as run_verification
    from jaxlint.verify.recording import recorded_for

    if not jax_available():
        for finding, edit in to_verify:
            decided.append((finding, edit, Attempt(unsafe_fixes, NO_JAX, None)))
        return decided

    requests = [
        VerifyRequest(
            request_id=str(number),
            path=path,
            original_source=source,
            rewritten_source=edited_source(module, [edit], source),
            target=edit.verify_target or "",
            fix_code=finding.rule.code,
            require_fewer_eqns=edit.require_fewer_eqns,
            recorded=recorded_for(path, file_source or source, edit.verify_target or ""),
            numpy_reference=edit.numpy_reference,
            restages=edit.restages,
            rewrites_prints=edit.rewrites_prints,
            judge_run_time=edit.judge_run_time,
        )
        for number, (finding, edit) in enumerate(to_verify)
    ]
    results = {r.request_id: r for r in run_verification(requests)}
    for number, (finding, edit) in enumerate(to_verify):
        result = results[str(number)]
        if result.verified:
            decided.append((finding, edit, Attempt(True, None, result.to_json())))
        else:
            note = f"verification {result.status}: {result.reason}"
            decided.append((finding, edit, Attempt(unsafe_fixes, note, result.to_json())))
    return decided


def _line_map(current: str, original: str) -> dict[int, int]:
    """Line numbers of `current` → `original`, for lines earlier rounds left untouched."""
    if current == original:
        return {}
    matcher = difflib.SequenceMatcher(
        a=current.splitlines(), b=original.splitlines(), autojunk=False
    )
    mapping = {}
    for block in matcher.get_matching_blocks():
        for offset in range(block.size):
            mapping[block.a + offset + 1] = block.b + offset + 1
    return mapping


def _covered_records(
    analyzed: AnalyzedSource,
    applied: list[tuple[Finding, Edit]],
    attempts: dict[FindingKey, Attempt],
    path: str,
    to_original: dict[int, int],
) -> list[Diagnostic]:
    """The findings of the same rule that an applied edit fixed with its own (one edit for
    every print of a function, every store into a parameter): reported as fixed by it."""
    # (a finding reported twice, once per jit root, is one diagnostic: spans decide)
    reported = {(finding.rule.code, finding.span) for finding, _ in applied}
    by_node: dict[int, tuple[Finding, Edit]] = {
        id(node): (finding, edit) for finding, edit in applied for node in edit.replacements
    }
    records = []
    for finding in analyzed.findings:
        lead = by_node.get(id(finding.node))
        where = (finding.rule.code, finding.span)
        if lead is None or lead[0].rule is not finding.rule or where in reported:
            continue
        reported.add(where)
        attempt = attempts[finding_key(lead[0])]
        records.append(_record(finding, path, attempt, to_original, edit=lead[1]))
    return records


def _record(
    finding: Finding,
    path: str,
    attempt: Attempt,
    to_original: dict[int, int],
    edit: Edit | None = None,
) -> Diagnostic:
    """An applied fix, reported where its finding was in the file as the user gave it (`edit`:
    the fix that fixed it, when another finding's)."""
    applied = edit if edit is not None else finding.fix
    assert isinstance(applied, Edit)
    span = finding.span
    if to_original and span.line in to_original and span.end_line in to_original:
        span = replace(span, line=to_original[span.line], end_line=to_original[span.end_line])
    return Diagnostic(
        code=finding.rule.code,
        severity=finding.level,
        message=finding.message,
        path=path,
        span=span,
        fix=Fix(
            kind=finding.fix_kind or "safe",
            description=applied.description,
            applied=True,
            verification=attempt.verification,
            note=attempt.note,
        ),
    )
