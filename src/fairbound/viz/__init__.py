"""Every figure fairbound draws (matplotlib, the ``plot`` extra, imported only to draw).

* :mod:`fairbound.viz.audit` - audits: forest plot, per-group rates, sample size
  (:meth:`fairbound.audits.AuditResult.plot`).
* :mod:`fairbound.viz.planning` - the Bernstein (BBU) n-vs-bias curve (``fairbound plan
  --figure``).
* :mod:`fairbound.viz.stability` - stability studies: boxplots, variance and mean heatmaps.
* :mod:`fairbound.viz.nli` - BBNLI measures and their parts.
* :mod:`fairbound.viz.coverage` - coverage studies (``fairbound reproduce bbu --figure``).

Figures read results (an audit, a plan, a study); the core, the engines and the domain
packages never import this package.
"""
