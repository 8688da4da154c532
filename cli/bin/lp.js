#!/usr/bin/env node
// Kept in git so npm can link `lp` at install time, before the build has produced dist/.
import "../dist/bin.js";
