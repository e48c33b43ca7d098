#!/bin/bash
# Copies the notes folder to a dated backup folder.
echo "backup: nothing to do yet"
