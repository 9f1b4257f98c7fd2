"""Release: the plan applied to the session's data, risk and utility after each step, and the downloads."""

from __future__ import annotations

import streamlit as st

from dashboard import release_plan, server_release, state
from dashboard.markdown import plain
from dashboard.release_maps import map_replicates
from dashboard.server_files import server_file_input
from dashboard.widgets import errors_shown, table
from rumap.errors import InputError
from rumap.fingerprint import bytes_digest, config_digest
from rumap.present.release_report import (
    above_sentences,
    decision_sentence,
    release_report_html,
    release_report_json,
)
from rumap.present.reproduce import to_command
from rumap.release.plan import ReleasePlan
from rumap.release.spec import DEFAULT_REPLICATES, ReleaseSpec

st.title("Release")
intro = st.empty()  # says what the steps are applied to, once the sidebar has said whether it is a file on the server

data = state.loaded_data()
server, server_refused = None, None
with st.sidebar:
    uploaded = st.file_uploader("Use a plan file", type=["json"], key="release_plan_upload", max_upload_size=1,
                                help="a release plan (the JSON downloaded here, or the steps of "
                                     "`python -m rumap release --json`); it replaces the steps below")
    if uploaded is not None:
        content = uploaded.getvalue()
        if st.session_state.get("release_plan_loaded") != bytes_digest(content):
            with errors_shown():
                plan = release_plan.load_plan(content)
                st.session_state["release_plan_loaded"] = bytes_digest(content)
                st.toast(f"Plan of {len(plan.steps)} step(s) loaded from {uploaded.name}.")
    try:  # a file on the server (an operator's option), released chunk by chunk into a file beside it
        server = server_file_input("release_server", "the session's data")
    except InputError as exc:
        server_refused = str(exc)
if server_refused is not None:
    st.error(plain(server_refused))
    st.stop()
if server is None:
    intro.caption("The steps applied from the maps, in order, applied to this session's data as "
                  "`python -m rumap release` applies a plan. The protected file and the report are built in memory "
                  "and leave only when you download them.")
else:
    intro.caption("The steps applied from the maps, in order, applied to the file on the server chunk by chunk as "
                  "`python -m rumap release --chunk-size` applies a plan. The released file is written on the "
                  "server, inside the same folder, under the name you give.")
if data is None and server is None:
    st.info("Load a data set on the Data page first.")
    st.stop()

steps = release_plan.steps()
st.subheader("Steps")
if st.button("Undo the last change", key="release_undo", disabled=not st.session_state.get(release_plan.HISTORY)):
    release_plan.undo()
    st.rerun()
if not steps:
    st.info("No step yet: press “Apply” under a map (Empirical map) to add its masking at the recommended "
            "value, or load a plan file in the sidebar.")
    st.stop()
for i, step in enumerate(steps):
    cols = st.columns([8, 1, 1, 1], vertical_alignment="center")
    cols[0].markdown(f"Step {i + 1}: {plain(release_plan.describe(step))}")
    if step.origin:
        cols[0].caption(plain(release_plan.origin_line(step)))
    if cols[1].button("↑", key=f"release_up_{i}", disabled=i == 0, help="move up"):
        release_plan.move(i, -1)
        st.rerun()
    if cols[2].button("↓", key=f"release_down_{i}", disabled=i == len(steps) - 1, help="move down"):
        release_plan.move(i, 1)
        st.rerun()
    if cols[3].button("Remove", key=f"release_remove_{i}"):
        release_plan.remove(i)
        st.rerun()

if server is not None:
    with errors_shown():
        server_release.show(server, ReleasePlan(tuple(steps)))
    st.stop()

file_name = release_plan.data_file_name(data.kind, data.name)
names = release_plan.out_names(file_name)
state.keep_shown("release_out_name", names[0])  # shown as chosen after a run that stopped above
out_name = st.selectbox("Protected file", names, key="release_out_name",
                        help="the upload's format, CSV or Parquet")

elsewhere = release_plan.other_data(steps, data.fingerprint)
if elsewhere:
    st.error(f"Step{'s' if len(elsewhere) > 1 else ''} {', '.join(map(str, elsewhere))} "
             f"{'were' if len(elsewhere) > 1 else 'was'} decided on a map of other data than this session's "
             f"{plain(data.name)} (data fingerprint {data.fingerprint[:12]}): the risk its map promised does not "
             "hold for this file. Draw the map again on this file, or confirm below to release it anyway.")
    confirm_key = f"release_confirm_{config_digest({'plan': [s.to_dict() for s in steps], 'data': data.fingerprint})[:16]}"
    if not st.checkbox(f"Apply this plan to {data.name} anyway", key=confirm_key):
        st.stop()

with errors_shown():
    plan = ReleasePlan(tuple(steps))
    own = map_replicates(steps, [*state.analyses(), *filter(None, [state.current("empirical")])], data.name)
    replicates = own or DEFAULT_REPLICATES  # the maps' own, so that their means are the maps' own
    with st.spinner("Applying the plan and measuring the released file…"):
        done = release_plan.cached_release(data.digest, data.frame, data.name, plan, out_name, replicates)
    for line in done.report.unreached:  # the file is written, but not protected as the step asked
        st.warning(plain(line))

    st.subheader("Risk and utility after each step")
    st.caption("Measured on the file released after each step against the original data (the report's risk and "
               "utility; linkage and interval disclosure are shares of the records; an information loss is 0 for "
               "unchanged data and grows as utility falls: SSE/SST is the share of the variance lost).")
    table(done.after_steps.rename(columns=lambda c: c if c in ("step", "method") else release_plan.measure_label(c)),
          hide_index=True)
    rows_in = max(int(data.frame.shape[0]), 1)
    checks = release_plan.checks_frame(done.report)
    if not checks.empty:
        st.subheader("Each step beside its map")
        st.caption("The released draw's measure beside the map's prediction at the step's value: its mean over "
                   "the simulated releases and the range one release falls in (None: no bound on that side); "
                   "“outside” flags a draw outside that range. "
                   + (f"The map is simulated again at the step's value with its own seed and {own} replicates, so "
                      "a measure the map draws (the snooper's risk on its targets) has the mean the map shows "
                      "there." if own else
                      f"The map is simulated again at the step's value with {replicates} replicates (the "
                      "“replicates” column): a map drawn with other replicates shows a mean that differs by "
                      "Monte-Carlo error."))
        table(checks, hide_index=True)
    for i, s in enumerate(done.report.steps):
        if s.decision:
            st.caption(f"Step {i + 1}: {plain(decision_sentence(s.decision))}")
        for text in above_sentences(s.decision):
            st.markdown(f":red[**Step {i + 1}: {plain(text)}**]")
    for note in done.report.notes:
        st.caption(plain(note))
    for i, s in enumerate(done.report.steps):
        if s.what_it_did:
            st.caption(f"Step {i + 1} {plain(s.what_it_did)}")
    for i, outcome in enumerate(done.result.outcomes):
        for column, count in (outcome.summary.get("sign_changed") or {}).items():
            if count:
                st.warning(f"Step {i + 1}: the noise gave {count:,} value(s) of {plain(column)} the other sign "
                           f"than the original ({count / rows_in:.1%} of the records), e.g. negative amounts: "
                           "truncating the map's noise at 0 keeps them in the data's range.")

    st.subheader("Downloads")
    cols = st.columns(4)
    cols[0].download_button(f"Protected file ({out_name.rsplit('.', 1)[-1]})", done.content, file_name=out_name,
                            key="release_download_data", on_click="ignore", type="primary")
    cols[1].download_button("Report (HTML)", release_report_html(done.report), file_name="release_report.html",
                            mime="text/html", key="release_download_html", on_click="ignore")
    cols[2].download_button("Report (JSON)", release_report_json(done.report), file_name="release_report.json",
                            mime="application/json", key="release_download_json", on_click="ignore")
    cols[3].download_button("Plan (JSON)", plan.to_json(), file_name="release_plan.json",
                            mime="application/json", key="release_download_plan", on_click="ignore")
    rows_out, columns_out = done.result.data.shape
    st.caption(f"{rows_out} rows, {columns_out} column{'s' if columns_out != 1 else ''}; SHA-256 of the file "
               f"{bytes_digest(done.content)}.")
    st.caption("The same file from the command line, with the downloaded plan and the data file:")
    st.code(to_command(ReleaseSpec(plan, file_name, out_name, replicates=replicates)), language="bash",
            wrap_lines=True)
