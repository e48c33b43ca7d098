"""Writes a small website bundle: a gzip-compressed tar archive whose files sit at its top level."""

import io
import sys
import tarfile

FILES = {
    "index.html": "<!doctype html>\n<html>\n<head><title>Lighthouse Cafe</title><link rel=\"stylesheet\" href=\"style.css\"></head>\n<body>\n<h1>Lighthouse Cafe</h1>\n<p>Open daily from 8 to 18.</p>\n<script src=\"app.js\"></script>\n</body>\n</html>\n",
    "style.css": "body {\n  font-family: sans-serif;\n  background: #f4efe6;\n}\nh1 {\n  color: #1d3557;\n}\n",
    "app.js": "document.querySelector(\"h1\").addEventListener(\"click\", () => {\n  alert(\"Welcome!\");\n});\n",
    "menu.txt": "espresso 2.20\ncappuccino 3.10\nlemon cake 3.50\ncheese toast 4.80\n",
    "README.txt": "Static site of the Lighthouse Cafe.\nUpload every file to the web root.\n",
}

with tarfile.open(sys.argv[1], "w:gz") as archive:
    for name, text in FILES.items():
        data = text.encode()
        info = tarfile.TarInfo(name)
        info.size, info.mtime, info.mode = len(data), 1_717_200_000, 0o644
        archive.addfile(info, io.BytesIO(data))
