"""TAP output for the ORM checks, which test/t/021_orm.pl reads."""

_checks = 0
_failures = 0


def check(ok, description):
    """Prints one numbered check, ok or not ok."""
    global _checks, _failures
    _checks += 1
    if not ok:
        _failures += 1
    print(f"{'ok' if ok else 'not ok'} {_checks} - {description}", flush=True)


def finish():
    """Prints the plan; returns the exit code, 1 if any check failed."""
    print(f"1..{_checks}")
    return 1 if _failures else 0
