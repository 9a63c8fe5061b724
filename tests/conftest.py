from __future__ import annotations

from pathlib import Path

import numpy as np
import pandas as pd
import pytest

REPO = Path(__file__).resolve().parents[1]
SHARED_DATA = REPO.parent / "shared" / "data"


@pytest.fixture
def shared_data() -> Path:
    """The shared real data folder; tests using it skip when it is absent."""
    if not SHARED_DATA.is_dir():
        pytest.skip("../shared/data is not present")
    return SHARED_DATA


def make_predictions(n: int = 4000, *, groups=("a", "b", "c"), seed: int = 0,
                     tpr=None, fpr=None, base=0.4) -> pd.DataFrame:
    """Synthetic binary predictions with per-group TPR/FPR."""
    rng = np.random.default_rng(seed)
    g = rng.choice(np.asarray(groups, dtype=object), size=n)
    y = (rng.random(n) < base).astype(int)
    tpr = tpr or {k: 0.8 for k in groups}
    fpr = fpr or {k: 0.2 for k in groups}
    t = np.array([tpr[k] for k in g])
    f = np.array([fpr[k] for k in g])
    u = rng.random(n)
    p = np.where(y == 1, u < t, u < f).astype(int)
    return pd.DataFrame({"g": g, "y": y, "p": p})


@pytest.fixture
def preds() -> pd.DataFrame:
    return make_predictions()


#: Tests that took over 1 s each on 2 cores (``python -m pytest --durations=200``): they
#: run after the fast default suite, with ``python -m pytest -m long`` (CI runs both).  Each
#: entry is a node id prefix (every parameter of a test at once).  A test that grows past
#: 1 s joins the list; one that gets faster may leave it.
LONG = (
    "tests/stats/test_vectorised.py::test_vectorised_equals_one_at_a_time[True-exact]",
    "tests/stats/test_exact_special.py::test_a_large_table_skips_the_package_and_a_later",
    "tests/audits/disagreement/test_audit.py::test_tweets_by_dialect",
    "tests/audits/gaps/test_audit.py::test_compas_harmful_positive",
    "tests/audits/gaps/test_audit.py::test_intersectional_groups",
    "tests/audits/ppi/test_audit.py::test_adult_end_to_end",
    "tests/audits/ppi/test_audit.py::test_cli_json_table_csv",
    "tests/audits/ppi/test_audit.py::test_good_proxy_narrower_and_covers",
    "tests/audits/ppi/test_audit.py::test_useless_proxy_costs_at_most_five_percent",
    "tests/audits/ppi/test_sampling.py::test_null_false_claims_through_the_public_path_with_default_seed",
    "tests/audits/ppi/test_score_proxy.py::test_null_false_claims_with_every_default",
    "tests/audits/ratios/test_audit.py::test_cli_json_csv_and_html",
    "tests/audits/ratios/test_audit.py::test_compas_ll144_categories_and_intersection",
    "tests/audits/ratios/test_audit.py::test_compas_selection_rate_impact_ratio_matches_a_hand_computation",
    "tests/audits/ratios/test_audit.py::test_null_five_groups_family_wise_false_claims_at_most_5_percent",
    "tests/audits/scores/test_audit.py::test_cli_json_html_and_csv",
    "tests/audits/scores/test_audit.py::test_null_family_wise_false_claims_fast",
    "tests/cli/test_defaults.py::test_report_with_data_gives_the_audits_intervals",
    "tests/docs/test_build_examples.py::test_example_texts_match_a_fresh_build",
    "tests/docs/test_regenerate.py::test_every_marked_output_is_what_the_tool_prints_now",
    "tests/docs/test_regenerate.py::test_long_blocks_chains_head_prompt_and_the_pages_python",
    "tests/docs/test_regenerate.py::test_the_check_fails_on_a_changed_output_and_an_unsupported_number",
    "tests/engines/test_duckdb_engine.py::test_cli_where_and_engine",
    "tests/engines/test_parity.py::test_same_intervals_from_every_engine",
    "tests/engines/test_reference.py::test_matches_pandas_reference",
    "tests/evaluation/test_reproduce.py::test_cli",
    "tests/evaluation/test_reproduce.py::test_cli_figure_kinds",
    "tests/evaluation/test_reproduce.py::test_figure1_as_in_the_paper",
    "tests/evaluation/test_simulate.py::test_cli_default_methods_skip_slow_cells",
    "tests/evaluation/test_simulate.py::test_methods_page_contents",
    "tests/evaluation/test_simulate.py::test_peeking_inflates_wald_not_betting",
    "tests/evaluation/test_simulate.py::test_same_seed_same_table_and_other_seed_differs",
    "tests/nli/test_cli.py::test_audit_and_compare",
    "tests/nli/test_cli_compare.py::test_masked_templates_counts",
    "tests/nli/test_compare_benchmarks.py::test_drop_interval_covers_the_true_difference",
    "tests/nli/test_extend.py::test_deterministic",
    "tests/nli/test_extend.py::test_other_settings_are_refused",
    "tests/nli/test_extend.py::test_pipeline_end_to_end",
    "tests/nli/test_extend.py::test_resume_after_interruption",
    "tests/nli/test_extend.py::test_resume_after_kill",
    "tests/nli/test_extend.py::test_validation_errors",
    "tests/nli/test_measures.py::test_identities_hold",
    "tests/nli/test_measures.py::test_identities_on_bbnli",
    "tests/planning/test_power.py::test_betting_power_at_2000_is_high_and_seeded",
    "tests/planning/test_power.py::test_cli_plan_with_method",
    "tests/planning/test_power.py::test_parity_plan_simulated_power_grows_with_n",
    "tests/report/test_audit_report.py::test_counts_say_what_they_count_and_agree",
    "tests/report/test_browser.py::test_audit_first_screen_holds_verdicts_and_forest_plot",
    "tests/report/test_browser.py::test_audit_on_a_phone_reads_verdict_first",
    "tests/report/test_browser.py::test_audit_report_loads_offline_with_figures",
    "tests/report/test_browser.py::test_first_verdict_is_above_the_fold",
    "tests/report/test_browser.py::test_injected_markup_never_runs",
    "tests/report/test_browser.py::test_no_element_is_wider_than_its_box",
    "tests/report/test_browser.py::test_plan_report_loads_offline",
    "tests/report/test_browser.py::test_report_prints",
    "tests/report/test_browser.py::test_stability_and_nli_reports_load_offline",
    "tests/report/test_cli.py::test_audit_html_and_markdown",
    "tests/report/test_cli.py::test_report_runs_an_audit",
    "tests/report/test_doctests.py::test_examples_run",
    "tests/report/test_honest_verdicts.py::test_error_control_is_stated_in_every_output",
    "tests/report/test_honest_verdicts.py::test_favourable_side_is_stated_in_every_output",
    "tests/report/test_honest_verdicts.py::test_report_renders_when_a_group_rate_is_one",
    "tests/report/test_html.py::test_hostile_group_names_are_escaped",
    "tests/report/test_html.py::test_plan_report_numbers",
    "tests/report/test_html.py::test_report_has_what_was_audited",
    "tests/report/test_html.py::test_report_is_self_contained",
    "tests/report/test_html.py::test_summary_sentences_match_the_core",
    "tests/report/test_html.py::test_write_audit_report_and_method",
    "tests/report/test_plotting.py::test_many_comparisons_are_capped_in_the_report",
    "tests/report/test_stability_nli.py::test_nli_cli_html",
    "tests/report/test_stability_nli.py::test_nli_report_measures_and_comparison",
    "tests/report/test_stability_nli.py::test_stability_cli_html",
    "tests/report/test_stability_nli.py::test_stability_report_errors",
    "tests/report/test_stability_nli.py::test_stability_report_numbers",
    "tests/report/test_stability_nli.py::test_stability_report_sections",
    "tests/report/test_stability_nli.py::test_stability_report_single_run_and_conditions",
    "tests/stability/test_stability_cli.py::test_bios_defaults",
    "tests/stability/test_stability_cli.py::test_run_resume_summary_report",
    "tests/stability/test_stability_cli.py::test_run_with_a_debiased_condition_on_a_file",
    "tests/stability/test_stability_jourdan.py::test_cli_min_per_gender_on_run_summary_and_report",
    "tests/stability/test_stability_jourdan.py::test_figure_7_rows_of_each_class_by_group_as_bars",
    "tests/stability/test_stability_jourdan.py::test_heatmaps_of_every_condition_side_by_side_on_one_scale",
    "tests/stability/test_stability_jourdan.py::test_report_in_a_real_browser",
    "tests/stability/test_stability_jourdan.py::test_report_names_metrics_in_full_and_cautions_few_runs",
    "tests/stability/test_stability_jourdan.py::test_report_of_two_conditions_shows_both_heatmaps_boxplots_and_the_filter",
    "tests/stability/test_stability_jourdan.py::test_study_keeps_the_threshold_and_filters",
    "tests/stability/test_stability_plots.py::test_report_on_a_real_study",
    "tests/stability/test_stability_sampling.py::test_allocate_is_within_one_of_the_quota",
    "tests/stability/test_stability_study.py::test_extending_a_study_keeps_earlier_runs",
    "tests/stability/test_stability_study.py::test_killed_study_resumes_without_lost_or_duplicated_runs",
    "tests/stability/test_stability_study.py::test_resume_after_partial_run_redoes_and_loses_nothing",
    "tests/stability/test_stability_study.py::test_same_seed_same_study_whatever_n_jobs",
    "tests/stability/test_stability_study.py::test_study_shapes_and_stratification",
    "tests/stats/test_bayes.py::test_frequentist_coverage_fast",
    "tests/stats/test_betting.py::test_null_false_claims_binary_default_seed",
    "tests/stats/test_betting.py::test_null_false_claims_sorted_fractional_samples",
    "tests/stats/test_betting_blocks.py::test_blocked_path_coverage",
    "tests/stats/test_betting_blocks.py::test_counts_path_coverage",
    "tests/stats/test_betting_blocks.py::test_pair_blocks_coverage",
    "tests/stats/test_bootstrap.py::test_max_t_band_covers_jointly_under_the_null",
    "tests/stats/test_coverage.py::test_guaranteed_coverage_reduced_grid",
    "tests/audits/gaps/test_comparison.py::test_fdr_on_arrays_keeps_the_last_build_and_counts_",
    "tests/stats/test_exact.py::test_bound_regime_coverage_by_enumeration",
    "tests/stats/test_exact.py::test_exact_coverage_across_the_switch",
    "tests/stats/test_exact.py::test_restricted_mle_maximises_the_constrained_likelihood",
    "tests/stats/test_monitor.py::test_anytime_validity_on_null_streams",
    "tests/stats/test_monitor.py::test_cli_monitor_never_counts_an_unfinished_line",
    "tests/stats/test_monitor.py::test_cli_monitor_reads_labels_like_audit",
    "tests/stats/test_multiplicity.py::test_e_holm_controls_fwer_and_e_bh_fdr_under_the_global_null",
    "tests/stats/test_multiplicity.py::test_matches_statsmodels_multipletests",
    "tests/stats/test_ppi.py::test_ratio_gap_coverage",
    "tests/stats/test_ppi_ipw.py::test_coverage_with_uncertainty_sampling_and_adaptive_batches",
    "tests/stats/test_ratio.py::test_exact_coverage_at_90_percent",
    "tests/stats/test_ratio.py::test_exact_coverage_by_enumeration",
    "tests/stats/test_ratio.py::test_exact_coverage_near_the_four_fifths_line",
    "tests/stats/test_ratio.py::test_restricted_mle_maximises_the_constrained_likelihood",
    "tests/stats/test_scores.py::test_calibration_intervals_cover",
    "tests/stats/test_scores.py::test_sup_t_band_holds_simultaneously",
    "tests/stats/test_simultaneous.py::test_bonferroni_betting_pairs_coverage",
    "tests/stats/test_simultaneous.py::test_simultaneous_coverage_fast",
    "tests/test_architecture.py::test_a_small_audit_starts_without_pydantic_pyarrow_pandas_or_scipy",
    "tests/test_architecture.py::test_plain_option_values_parse_as_typer_parses_them",
    "tests/test_docstrings.py::test_docstring_examples_run",
    "tests/test_error_control.py::test_main_audit_levels_and_verdicts",
    "tests/test_error_control.py::test_no_module_outside_control_computes_an_error_control_level",
    "tests/test_labels.py::test_audit_reads_yes_no_files_like_python",
    "tests/test_limits_and_messages.py::test_betting_works_at_huge_groups",
    "tests/test_limits_and_messages.py::test_multiclass_count_is_checked_before_intervals_too",
    "tests/test_outputs_never_clobber.py::test_a_full_device_leaves_the_other_outputs_alone",
    "tests/test_outputs_never_clobber.py::test_outputs_share_no_file",
    "tests/test_result_contract.py::test_report_writes_a_page",
    "tests/test_result_contract.py::test_reports_read_saved_json_with_and_without_kind",
    "tests/test_validity.py::test_compas_six_race_verdicts_do_not_change_across_20_seeds",
    "tests/test_validity.py::test_default_audit_controls_family_error_over_groups_and_metrics",
    "tests/test_validity.py::test_default_audit_null_binary_costs",
    "tests/test_validity.py::test_default_audit_null_fractional_costs",
    "tests/test_validity.py::test_default_audit_null_large_groups_use_the_batched_tail_bound",
    "tests/test_validity.py::test_default_verdicts_do_not_depend_on_the_seed",
    "tests/test_validity.py::test_error_control_none_is_per_comparison",
    "tests/test_validity.py::test_planted_gap_is_found",
    "tests/test_vocabulary.py::test_no_verdict_is_spelled_outside_the_vocabulary",
    "tests/test_vocabulary.py::test_small_group_is_defined_once",
)


def pytest_collection_modifyitems(config, items):
    """Mark the tests of :data:`LONG` ``long`` (the default run leaves them out)."""
    for item in items:
        if item.nodeid.startswith(LONG):
            item.add_marker(pytest.mark.long)
