"""golowich2025 Section 5 / App. E-F: Tables 1-4, Figure 5 and Remark 5.1, checked where they are exact
(verify/golowich/sec5.py); trained-model results are golowich2025:fig1 / fig2 (test_sec5_reproduction.py)."""

import pytest

from bounds.experiments.golowich2025 import PRESETS
from constructions.golowich.experiments import ExperimentDefinitionError, contexts, variable_assignment
from verify.claims import checks
from verify.golowich import sec5
from verify.kernel import assert_proof


@checks("golowich2025:tab1")
def test_table1_supports_the_texts_reading():
    assert sec5.table1_reading()
    swapped = {"h_short": {64: 14.74, 128: 17.59}, "h_long": sec5.TABLE1["h_long"]}
    assert not sec5.table1_reading(swapped)  # negative control: columns swapped


@checks("golowich2025:tab2")
def test_table2_is_the_paper_preset():
    assert sec5.preset_deviations(PRESETS["sparse-parity"]["paper"], sec5.TABLE2, 1) == []
    assert sec5.preset_deviations(PRESETS["sparse-parity"]["paper"], {**sec5.TABLE2, "L_max": 500}, 1)  # control


@checks("golowich2025:tab3")
def test_table3_is_the_paper_preset():
    """Table 3's lengths are 2 ell (input plus scratchpad); the preset stores ell."""
    assert sec5.preset_deviations(PRESETS["scratchpad"]["paper"], sec5.TABLE3, 2) == []
    assert sec5.preset_deviations(PRESETS["scratchpad"]["paper"], sec5.TABLE3, 1)  # control: lengths not doubled


@checks("golowich2025:tab4")
def test_table4_fits_the_data_format_of_e3():
    """Every input length 20..200 and depth 2..5: at most 200 variables, position IDs <= L_max = 230, and the
    scratchpad ends at the chain's answer."""
    assert sec5.table4_violations() == []
    assert sec5.table4_violations({**sec5.TABLE4, "L_max": 199})  # control: IDs reach 200 (d = 2, ell = 200)
    assert sec5.table4_violations({**sec5.TABLE4, "vocab": 90})  # control: 33 chains of depth 2 need 99


@checks("golowich2025:tab4")
def test_variable_assignment_instance_by_hand():
    import random

    inst = variable_assignment(2, 12, 10, random.Random(3))
    assert len(inst.chains) == 2 and inst.input_length == 3 + 12
    assert inst.tokens[inst.input_length] == "<SEP_2>" and inst.tokens[1] == inst.chains[0][0]
    scratch = inst.tokens[inst.input_length + 1:]
    assert scratch == (inst.chains[0][0], "<-", inst.chains[0][1], inst.chains[0][1], "<-", inst.chains[0][2])
    coupled = inst.position_ids[inst.input_length + 1:]
    assert [inst.tokens[i] for i in coupled[::3]] == [inst.chains[0][0], inst.chains[0][1]]
    with pytest.raises(ExperimentDefinitionError):
        variable_assignment(5, 14, 200, random.Random(0))


@checks("golowich2025:fig5")
def test_figure5_caption_contexts():
    c = sec5.figure5_contexts()
    assert c == {"short": (6, 7), "long": (1, 2, 3, 4, 5, 6, 7), "short,sparse": (2, 4, 6, 7)}
    assert len(c["short"]) == 2 and len(c["short,sparse"]) == 2 + 2  # L and L + k tokens
    assert sec5.text_range_overlap(8, 2) == {6}  # "the first Lbar - L tokens" reaches into the recent window
    with pytest.raises(ExperimentDefinitionError):
        contexts(8, 2, (2, 6))  # eq. (6): J must lie in [Lbar - L - 1]


@checks("golowich2025:rem5.1")
def test_rotary_scores_depend_on_relative_positions_only():
    res = assert_proof(sec5.rope_relative())
    assert all(not r.negative_outcome.holds for r in res)
