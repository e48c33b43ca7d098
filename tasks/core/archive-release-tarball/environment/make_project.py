"""Writes a small project folder with a .git directory, __pycache__ folders and log files mixed in."""

import sys
from pathlib import Path

FILES = {
    "README.md": "# project\n\nVersion 1.2.\n",
    "setup.cfg": "[metadata]\nname = project\nversion = 1.2\n",
    ".gitignore": "__pycache__/\n*.log\n",
    "src/app.py": "print('hello')\n",
    "src/util.py": "def double(x):\n    return 2 * x\n",
    "src/__pycache__/app.cpython-311.pyc": "compiled",
    "src/plugins/csv_export.py": "EXPORT = 'csv'\n",
    "src/plugins/__pycache__/csv_export.cpython-311.pyc": "compiled",
    "tests/test_util.py": "from util import double\n",
    "docs/changelog.txt": "1.2: faster exports\n",
    "docs/logging.md": "Logs go to logs/app.log.\n",
    "build.log": "compiling...\n",
    "logs/app.log": "started\n",
    "logs/app.log.1": "rotated log\n",
    ".git/HEAD": "ref: refs/heads/main\n",
    ".git/config": "[core]\n",
    ".git/objects/ab/cdef": "blob",
}

root = Path(sys.argv[1])
for name, text in FILES.items():
    (root / name).parent.mkdir(parents=True, exist_ok=True)
    (root / name).write_text(text)
