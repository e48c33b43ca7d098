#!/bin/bash
chmod 600 /app/keys/id_deploy
ls -l /app/keys
