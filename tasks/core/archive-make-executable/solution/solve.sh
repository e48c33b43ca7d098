#!/bin/bash
chmod +x /app/bin/*.sh
ls -l /app/bin
