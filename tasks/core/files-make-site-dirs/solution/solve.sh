#!/bin/bash
mkdir -p /app/site/css /app/site/js /app/site/images
ls -l /app/site
