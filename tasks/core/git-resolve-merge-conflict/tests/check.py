"""Prints 1 when main has a merge commit of the two branch tips whose pricing.py keeps both sides, else 0."""

import importlib.util
import subprocess
import sys
import tempfile
from pathlib import Path

REPO = "/app/shop"
MAIN_TIP = "afafcb054d7d05212c7d03bb0b9532e8549068d6"
FEATURE_TIP = "265ec809c7da273cfa89a1ce7544dc000be7e0d4"


def git(*args: str) -> str:
    return subprocess.run(["git", "-C", REPO, *args], capture_output=True, text=True, check=True).stdout.strip()


def committed_pricing():
    source = git("show", "main:pricing.py")
    if "<<<<<<<" in source or ">>>>>>>" in source:
        raise AssertionError("pricing.py still has conflict markers")
    path = Path(tempfile.mkdtemp()) / "pricing.py"
    path.write_text(source)
    spec = importlib.util.spec_from_file_location("pricing", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def main() -> int:
    try:
        if Path(REPO, ".git", "MERGE_HEAD").exists():
            raise AssertionError("the merge is still in progress")
        if git("symbolic-ref", "--short", "HEAD") != "main":
            raise AssertionError("HEAD is not on main")
        parents = git("log", "-1", "--format=%P", "main").split()
        if parents != [MAIN_TIP, FEATURE_TIP]:
            raise AssertionError(f"main's last commit is not a merge of main and feature/discounts (parents {parents})")
        pricing = committed_pricing()
        assert pricing.price_with_tax(100) == 121, "price_with_tax(100) should be 121 (21% tax)"
        assert pricing.price_with_tax(100, discount_percent=10) == 108.9, "price_with_tax(100, discount_percent=10) should be 108.9"
        assert pricing.price_with_tax(19.99) == 24.19, "price_with_tax(19.99) should be 24.19"
        assert pricing.apply_discount(80, 25) == 60, "apply_discount(80, 25) should be 60"
        assert pricing.format_price(12.5) == "12.50 EUR", "format_price(12.5) should be '12.50 EUR'"
    except subprocess.CalledProcessError as e:
        print(f"git failed: {e.stderr}", file=sys.stderr)
        return 0
    except Exception as e:
        print(f"{type(e).__name__}: {e}", file=sys.stderr)
        return 0
    return 1


print(main())
