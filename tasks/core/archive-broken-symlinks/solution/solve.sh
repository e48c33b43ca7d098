#!/bin/bash
find /app/links -xtype l | sort > /app/broken.txt
find /app/links -xtype l -delete
