"""Writes a home-directory backup whose one settings.ini is buried in a hidden folder, next to look-alike files."""

import io
import random
import sys
import tarfile

rng = random.Random(13)
members = {
    "home/alice/.config/reporter/settings.ini": "[reporter]\nschedule = weekly\nrecipients = ops@example.com, data@example.com\nformat = pdf\n",
    "home/alice/.config/reporter/settings.ini.example": "[reporter]\nschedule = daily\nrecipients = you@example.com\n",
    "etc/reporter/defaults.ini": "[reporter]\nschedule = monthly\nformat = html\n",
    "home/bob/settings.ini.bak": "[reporter]\nschedule = never\n",
}
for user in ["alice", "bob"]:
    for folder in ["documents", "downloads", "projects/site", ".cache/thumbs"]:
        for number in range(rng.randint(2, 5)):
            members[f"home/{user}/{folder}/file{number}.txt"] = f"{user} {folder} {number}\n" * rng.randint(1, 50)

with tarfile.open(sys.argv[1], "w:gz") as archive:
    for name, text in members.items():
        data = text.encode()
        info = tarfile.TarInfo(name)
        info.size, info.mtime, info.mode = len(data), 1_704_067_200, 0o644
        archive.addfile(info, io.BytesIO(data))
