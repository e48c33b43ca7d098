"""Writes a zip file (named .bin) holding a readme and an xz-compressed tar, which holds the manifest among other files."""

import io
import sys
import tarfile
import zipfile

MANIFEST = "delivery: 2024-0931\nsupplier: Northwind Parts\nitems: 1250\nchecksum: 7f3a9c\n"


def tar_xz(members: dict[str, str]) -> bytes:
    buffer = io.BytesIO()
    with tarfile.open(fileobj=buffer, mode="w:xz") as archive:
        for name, text in members.items():
            data = text.encode()
            info = tarfile.TarInfo(name)
            info.size, info.mtime, info.mode = len(data), 1_717_200_000, 0o644
            archive.addfile(info, io.BytesIO(data))
    return buffer.getvalue()


inner = tar_xz({
    "shipment/parts.csv": "sku,qty\nA-100,500\nB-220,750\n",
    "shipment/docs/manifest.txt": MANIFEST,
    "shipment/docs/manifest-template.txt": "delivery: \nsupplier: \nitems: \n",
})
with zipfile.ZipFile(sys.argv[1], "w", zipfile.ZIP_DEFLATED) as delivery:
    delivery.writestr("README.txt", "Unpack payload/data.pkg to get the shipment.\n")
    delivery.writestr("payload/data.pkg", inner)
    delivery.writestr("payload/checksums.txt", "data.pkg 7f3a9c\n")
