"""The mutation fuzzer of corefio's readers, writers and scorer (issue 13).

``python -m tests.fuzz --minutes N`` runs a campaign; ``test_fuzz_budget.py`` runs a
short one in CI. See :mod:`tests.fuzz.fuzzer` for the checks.
"""
