"""GoodCritters (Arcane Wonders, 2018) as RULES.md rules it: the ruleset is :data:`RULESET`."""
