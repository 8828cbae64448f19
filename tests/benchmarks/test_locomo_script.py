"""benchmarks/locomo.py runs end to end on a file in LoCoMo's layout and scores what it should."""
from __future__ import annotations

import json
import re
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def test_locomo_script_scores_a_small_conversation(tmp_path):
    conv = {"sample_id": "tiny", "conversation": {
        "speaker_a": "Ana", "speaker_b": "Ben",
        "session_1_date_time": "1:56 pm on 8 May, 2023",
        "session_1": [
            {"speaker": "Ana", "dia_id": "D1:1", "text": "I adopted a tabby kitten named Miso last week!"},
            {"speaker": "Ben", "dia_id": "D1:2", "text": "Lovely. I am training for the Boston marathon."},
            {"speaker": "Ana", "dia_id": "D1:3", "text": "Good luck with the running."}],
        "session_2_date_time": "10:00 am on 20 June, 2023",
        "session_2": [
            {"speaker": "Ben", "dia_id": "D2:1", "text": "My sister Clara moved to Lisbon.",
             "blip_caption": "a photo of a tram on a hill"},
            {"speaker": "Ana", "dia_id": "D2:2", "text": "I started pottery classes on Tuesdays."}]},
        "qa": [{"question": "What is the name of Ana's kitten?", "answer": "Miso", "evidence": ["D1:1"], "category": 4},
               {"question": "Where did Ben's sister move?", "answer": "Lisbon", "evidence": ["D2:1"], "category": 4},
               {"question": "Which marathon is Ben training for?", "answer": "Boston", "evidence": ["D1:2"],
                "category": 1},
               {"question": "An adversarial one", "answer": "", "evidence": ["D1:3"], "category": 5}]}
    path = tmp_path / "tiny.json"
    path.write_text(json.dumps([conv]))
    out = subprocess.run([sys.executable, str(ROOT / "benchmarks" / "locomo.py"), str(path), "--qa", "--foreign", "0"],
                         capture_output=True, text=True, timeout=600, cwd=tmp_path)
    assert out.returncode == 0, out.stderr[-2000:]
    assert "1 conversations, 3 questions (categories 1-4)" in out.stdout  # category 5 is left out
    assert "[test] 1 conversations, 3 questions" in out.stdout  # "tiny" is not a dev conversation
    lines = {ln.split()[1]: ln for ln in out.stdout.splitlines()
             if re.match(r"^\[test\] (kith|bm25|dense|minilm) R@1=", ln)}
    assert set(lines) == {"kith", "bm25", "dense", "minilm"}
    # each question names its answer's words: the ingested chat's turns come back first for all three
    assert re.search(r"kith R@1=1\.000 R@5=1\.000 R@10=1\.000 R@20=1\.000 p95=\d+\.\d ms", lines["kith"])
    assert re.search(r"\[test\] p95 kith [\d.]+ ms vs dense [\d.]+ ms: [\d.]+×", out.stdout)
    assert re.search(r"\[test\] QA memory F1=[\d.]+ \(n=3\)", out.stdout)
