"""The policy engine: prioritised allow / deny / ask_user rules from TOML files, settings and built-in defaults
(``engine.py`` decides, ``rules.py`` the rule type and tiers, ``loader.py`` reads the files, ``defaults.py``)."""
