#!/bin/bash
ln -s /app/releases/v2 /app/current
ls -l /app/current
