#!/bin/bash
# Deploys the current build.
echo "deploy: nothing to do yet"
