"""Sphinx configuration for the samecode documentation."""

import samecode

project = "samecode"
author = "samecode developers"
copyright = "2026, samecode developers"
release = samecode.__version__
version = release

extensions = ["sphinx.ext.autodoc", "sphinx.ext.viewcode"]
autodoc_member_order = "bysource"
autodoc_typehints = "description"
autodoc_default_options = {"members": True, "show-inheritance": True}
exclude_patterns = ["_build"]
html_theme = "alabaster"
