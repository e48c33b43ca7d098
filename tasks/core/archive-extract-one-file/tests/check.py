"""Reward 1 when /app/settings.ini is the settings.ini of the backup, and the backup still holds it."""

import tarfile
from pathlib import Path

EXPECTED = "[reporter]\nschedule = weekly\nrecipients = ops@example.com, data@example.com\nformat = pdf\n"
MEMBER = "home/alice/.config/reporter/settings.ini"

try:
    with tarfile.open("/app/backup.tar.gz") as archive:
        archived = archive.extractfile(MEMBER).read().decode()
except (OSError, KeyError, tarfile.TarError):
    archived = None
restored = Path("/app/settings.ini")
print(1 if archived == EXPECTED and restored.is_file() and restored.read_text() == EXPECTED else 0)
