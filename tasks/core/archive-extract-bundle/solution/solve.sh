#!/bin/bash
tar -xzf /app/bundle.tar.gz -C /app/bundle
ls -l /app/bundle
