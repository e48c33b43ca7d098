#!/bin/bash
cp /app/inbox/*.txt /app/notes/
ls -l /app/notes
