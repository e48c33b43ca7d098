#!/bin/bash
# Usage: backup.sh SOURCE_DIR DEST_DIR
# Copies every .txt file of SOURCE_DIR into DEST_DIR, adding .bak to its name.
src=$1
dest=$2
mkdir -p $dest
for file in $(ls $src/*.txt); do
    name=$(basename $file)
    cp $file $dest/$name.bak
done
echo "backed up $(ls $dest | wc -l) files"
