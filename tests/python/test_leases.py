"""The lease layer from Python: a hand-computed three-lease run, metrics, and errors that
leave the scheduler unchanged."""

import os

import pytest

import leasehold


def three_leases():
    # Two nodes. Lease 1 takes both for [0, 100); leases 2 (50 s) and 3 (30 s) each need one
    # node and wait until 100, in FIFO order on the two freed nodes.
    return [
        leasehold.lease_terms(1, 0, duration=100, nodes=2),
        leasehold.lease_terms(2, 10, duration=50),
        leasehold.lease_terms(3, 20, duration=30),
    ]


def test_simulation_hand_computed():
    s = leasehold.lease_scheduler(2, (1, 1024, 0, 0), leasehold.scheduler_config.novm_nosr())
    assert leasehold.simulate_leases(s, three_leases()) > 0
    assert [(s.first_start(i), s.end(i)) for i in (1, 2, 3)] == [(0, 100), (100, 150), (100, 130)]
    assert all(s.state(i) == leasehold.lease_state.done for i in (1, 2, 3))
    m = leasehold.measure(s, warmup_fraction=0.0)
    assert m.all_best_effort == 150
    assert m.best_effort_completed == 3
    # Waits 0, 90 and 80 s.
    assert m.mean_wait == pytest.approx(170 / 3)
    s.validate()


def test_take_finished_hands_out_each_lease_once():
    # The three-lease run with retire_finished: lease 1 ends at 100, 3 at 130, 2 at 150, and
    # each leaves the scheduler as it finishes.
    config = leasehold.scheduler_config.novm_nosr()
    config.retire_finished = True
    s = leasehold.lease_scheduler(2, (1, 1024, 0, 0), config)
    assert s.take_finished() == [] and s.finished_count() == 0
    for terms in three_leases():
        s.submit(terms, terms.submit)
    s.advance_to(100)
    assert s.finished_count() == 1
    first = s.take_finished()
    assert [r.id for r in first] == [1] and s.finished_count() == 0
    assert first[0].state == leasehold.lease_state.done
    assert (first[0].first_start, first[0].end) == (0, 100)
    [stretch] = first[0].history
    assert stretch.nodes == [0, 1] and stretch.span == (0, 100) and stretch.run == (0, 100)
    assert stretch.outcome == leasehold.segment_outcome.completed
    with pytest.raises(leasehold.Error, match="take_finished"):
        s.state(1)  # retired: no longer known to the scheduler
    s.advance_to(150)
    rest = s.take_finished()
    assert [(r.id, r.first_start, r.end) for r in rest] == [(3, 100, 130), (2, 100, 150)]
    assert [r.history[0].nodes for r in rest] == [[1], [0]]
    assert all(r.suspensions == 0 and r.migrations == 0 and r.rejection == "" for r in rest)
    assert s.take_finished() == []
    s.validate()


def test_errors_leave_scheduler_unchanged():
    s = leasehold.lease_scheduler(2, (1, 1024, 0, 0), leasehold.scheduler_config.novm_nosr())
    assert s.submit(leasehold.lease_terms(1, 0, duration=100), 0) == (leasehold.admission.queued, "")
    with pytest.raises(leasehold.InvalidRequest, match="asks for 3 nodes but the cluster has 2"):
        s.submit(leasehold.lease_terms(2, 0, duration=10, nodes=3), 0)
    s.advance_to(50)
    with pytest.raises(leasehold.InvalidRequest, match="time went backwards"):
        s.submit(leasehold.lease_terms(3, 5, duration=10), 5)
    assert s.now == 50
    assert s.first_start(1) == 0 and s.state(1) == leasehold.lease_state.running
    with pytest.raises(leasehold.Error):
        s.state(2)  # never admitted
    s.validate()


def test_swf_reader(tmp_path):
    log = tmp_path / "tiny.swf"
    # job submit wait run procs cpu mem reqprocs reqtime reqmem status uid gid app queue part prev think
    log.write_text(
        "; tiny log\n"
        "1 0 0 100 2 -1 -1 2 100 -1 1 1 1 1 1 1 -1 -1\n"
        "2 10 0 50 1 -1 -1 1 60 -1 1 1 1 1 1 1 -1 -1\n"
    )
    leases = leasehold.read_swf_leases(str(log))
    assert [(l.id, l.submit, l.nodes, l.duration, l.real_duration) for l in leases] == [
        (1, 0, 2, 100, 100),
        (2, 10, 1, 60, 50),
    ]
    with pytest.raises(leasehold.Error, match="cannot open"):
        leasehold.read_swf_leases(str(tmp_path / "missing.swf"))


def test_ar_injection_reader():
    shared = os.environ.get("LEASEHOLD_SHARED_DIR")
    path = None
    if shared:
        path = os.path.join(shared, "haizea-workloads", "ar-injections-30days",
                            "work_10-dur_3h-size_2medium.lwf")
    if path is None or not os.path.exists(path):
        pytest.skip("Haizea AR-injection files not found (LEASEHOLD_SHARED_DIR)")
    leases = leasehold.read_ar_injections(path, 1000)
    assert leases and leases[0].id == 1000 and leases[1].id == 1001
    assert all(l.kind == leasehold.lease_kind.advance_reservation for l in leases)
    assert all(not l.preemptible and l.real_duration <= l.duration for l in leases)


def test_image_property():
    t = leasehold.lease_terms(1, 0, duration=10)
    assert t.image is None
    t.image = ("debian.img", 600)
    assert t.image == ("debian.img", 600)
    t.image = None
    assert t.image is None


class recorder:
    def __init__(self):
        self.events = []

    def on_ready(self, id, at, nodes):
        self.events.append(("ready", id, at, list(nodes)))

    def on_ended(self, id, at):
        self.events.append(("ended", id, at))


def test_python_observer_sees_events():
    s = leasehold.lease_scheduler(2, (1, 1024, 0, 0), leasehold.scheduler_config.novm_nosr())
    r = recorder()
    s.set_observer(r)
    leasehold.simulate_leases(s, three_leases())
    assert r.events == [
        ("ready", 1, 0, [0, 1]),
        ("ended", 1, 100),
        ("ready", 2, 100, [0]),
        ("ready", 3, 100, [1]),
        ("ended", 3, 130),
        ("ended", 2, 150),
    ]


class failing(recorder):
    def on_ready(self, id, at, nodes):
        super().on_ready(id, at, nodes)
        raise RuntimeError(f"observer refuses lease {id}")


def test_observer_exception_is_raised_after_a_consistent_step():
    s = leasehold.lease_scheduler(2, (1, 1024, 0, 0), leasehold.scheduler_config.novm_nosr())
    f = failing()
    s.set_observer(f)
    with pytest.raises(RuntimeError, match="observer refuses lease 1"):
        s.submit(leasehold.lease_terms(1, 0, duration=100), 0)
    # The lease was admitted and started all the same: the scheduler finished its step.
    assert s.state(1) == leasehold.lease_state.running
    s.validate()
    # The exception is reported once; the scheduler keeps working.
    s.set_observer(None)
    s.advance_to(100)
    assert s.state(1) == leasehold.lease_state.done and s.end(1) == 100


def test_observer_exception_from_simulation():
    s = leasehold.lease_scheduler(2, (1, 1024, 0, 0), leasehold.scheduler_config.novm_nosr())
    s.set_observer(failing())
    with pytest.raises(RuntimeError, match="observer refuses lease 1"):
        leasehold.simulate_leases(s, three_leases())
    assert [s.end(i) for i in (1, 2, 3)] == [100, 150, 130]
    s.validate()


LWF = """<?xml version="1.0"?>
<lease-workload name="two">
  <lease-requests>
    <lease-request arrival="00:00:00.00">
      <lease id="1" preemptible="true">
        <nodes><node-set numnodes="1"><res amount="100" type="CPU"/><res amount="1024" type="Memory"/></node-set></nodes>
        <start/>
        <duration time="01:00:00.00"/>
        <software><disk-image id="foobar1.img" size="1024"/></software>
      </lease>
    </lease-request>
    <lease-request arrival="00:15:00.50">
      <realduration time="00:20:00"/>
      <lease id="2" preemptible="false">
        <nodes><node-set numnodes="3"><res amount="200" type="CPU"/><res amount="512" type="Memory"/></node-set></nodes>
        <start><exact time="26:30:00.00"/></start>
        <duration time="00:30:00.00"/>
        <software><none/></software>
      </lease>
    </lease-request>
  </lease-requests>
</lease-workload>
"""


def test_lwf_reader(tmp_path):
    path = tmp_path / "two.lwf"
    path.write_text(LWF)
    first, second = leasehold.read_lwf_leases(str(path))
    # CPU 100 is one CPU; 26:30:00 is 95,400 s.
    assert (first.id, first.kind, first.nodes, first.per_node, first.duration) == (
        1, leasehold.lease_kind.best_effort, 1, (1, 1024, 0, 0), 3600)
    assert first.image == ("foobar1.img", 1024)
    assert (second.kind, second.start, second.nodes, second.real_duration) == (
        leasehold.lease_kind.advance_reservation, 95400, 3, 1200)
    assert not second.preemptible
    bad = tmp_path / "bad.lwf"
    bad.write_text("<lease-workload><lease-requests><lease-request>")
    with pytest.raises(leasehold.Error):
        leasehold.read_lwf_leases(str(bad))


class phases:
    def __init__(self):
        self.events = []

    def on_migrated(self, id, at, from_nodes, to_nodes, transfer):
        self.events.append(("migrated", id, at, list(from_nodes), list(to_nodes), transfer))

    def on_resuming(self, id, nodes, span):
        self.events.append(("resuming", id, list(nodes), span))


def test_observer_hears_migration_and_resume_phases():
    # NOVM-SR defaults: suspending or resuming 1024 MB at 50 MB/s takes 21 s, migrating it at
    # 10 MB/s 103 s. Lease 1 (2 nodes x 1000) runs on nodes 0, 1 and suspends [479, 500) for
    # the reservation over [500, 1500); lease 2 holds nodes 2, 3 until 600. Lease 1 migrates
    # there at 600: transfer [600, 703), resume [703, 724).
    s = leasehold.lease_scheduler(4, (1, 1024, 10000, 10), leasehold.scheduler_config.novm_sr())
    seen = phases()
    s.set_observer(seen)
    leasehold.simulate_leases(s, [
        leasehold.lease_terms(1, 0, duration=1000, nodes=2),
        leasehold.lease_terms(2, 0, duration=600, nodes=2),
        leasehold.lease_terms(3, 100, kind=leasehold.lease_kind.advance_reservation,
                              duration=1000, nodes=2, start=500, preemptible=False),
    ])
    assert seen.events == [
        ("migrated", 1, 600, [0, 1], [2, 3], (600, 703)),
        ("resuming", 1, [2, 3], (703, 724)),
    ]


def contended():
    # Two nodes. Lease 1 holds both over [0, 100); leases 2 (300 s), 3 (50 s) and 4 (10 s), each
    # on both nodes, arrive at 1, 2 and 3 and wait.
    return [
        leasehold.lease_terms(1, 0, duration=100, nodes=2),
        leasehold.lease_terms(2, 1, duration=300, nodes=2),
        leasehold.lease_terms(3, 2, duration=50, nodes=2),
        leasehold.lease_terms(4, 3, duration=10, nodes=2),
    ]


def test_queue_order_from_python():
    # FIFO: 2 [100, 400), 3 [400, 450), 4 [450, 460). Shortest first (a Python key on the work
    # left): 4 [100, 110), 3 [110, 160), 2 [160, 460).
    fifo = leasehold.lease_scheduler(2, (1, 1024, 0, 0), leasehold.scheduler_config.novm_nosr())
    leasehold.simulate_leases(fifo, contended())
    assert [fifo.first_start(i) for i in (2, 3, 4)] == [100, 400, 450]

    calls = []

    def shortest_first(terms, remaining, now):
        calls.append(terms.id)
        return remaining

    sjf = leasehold.lease_scheduler(2, (1, 1024, 0, 0), leasehold.scheduler_config.novm_nosr(),
                                    queue_order=shortest_first)
    leasehold.simulate_leases(sjf, contended())
    assert [sjf.first_start(i) for i in (2, 3, 4)] == [160, 110, 100]
    assert [sjf.end(i) for i in (2, 3, 4)] == [460, 160, 110]
    assert calls  # asked while the GIL was released by simulate_leases
    sjf.validate()


def test_queue_order_that_raises_changes_nothing():
    def refuses(terms, remaining, now):
        if terms.id == 3:
            raise ValueError("no key for lease 3")
        return 0.0

    s = leasehold.lease_scheduler(2, (1, 1024, 0, 0), leasehold.scheduler_config.novm_nosr(),
                                  queue_order=refuses)
    s.submit(leasehold.lease_terms(1, 0, duration=100, nodes=2), 0)
    s.submit(leasehold.lease_terms(2, 1, duration=300, nodes=2), 1)
    with pytest.raises(ValueError, match="no key for lease 3"):
        s.submit(leasehold.lease_terms(3, 2, duration=50, nodes=2), 2)
    assert s.now == 1
    assert s.queue() == [] and s.state(2) == leasehold.lease_state.scheduled
    with pytest.raises(leasehold.Error):
        s.state(3)
    s.validate()


def test_node_choice_from_python():
    # Four nodes of 2 cores. Lease 1 (one node, 1 core, [0, 100)) finds every node with 2 cores
    # free: equal keys, so the lowest id, node 0, as Haizea would. Lease 2 (the same shape, at
    # 10) finds 1 core left on node 0 over [10, 110) and 2 on the others: a key of minus the
    # free cores spreads it to node 1, where Haizea's lowest id would have put it on node 0.
    asked = []

    def spread(node, terms, begin, end, free):
        asked.append((terms.id, node, begin, end, free))
        return -free[0]

    config = leasehold.scheduler_config.novm_nosr()
    one_core = (1, 512, 0, 0)
    for choice, second in ((None, [0]), (spread, [1])):
        s = leasehold.lease_scheduler(4, (2, 1024, 0, 0), config, node_choice=choice)
        r = recorder()
        s.set_observer(r)
        s.submit(leasehold.lease_terms(1, 0, duration=100, per_node=one_core), 0)
        s.submit(leasehold.lease_terms(2, 10, duration=100, per_node=one_core), 10)
        assert r.events == [("ready", 1, 0, [0]), ("ready", 2, 10, second)]
        s.validate()
    lease_2 = sorted(a for a in asked if a[0] == 2)
    assert [a[1] for a in lease_2] == [0, 1, 2, 3]
    assert all(a[2:4] == (10, 110) for a in lease_2)
    assert [a[4] for a in lease_2] == [(1, 512, 0, 0)] + [(2, 1024, 0, 0)] * 3


def test_node_choice_that_raises_changes_nothing():
    def refuses(node, terms, begin, end, free):
        if terms.id == 2:
            raise ValueError("no key for lease 2")
        return 0.0

    s = leasehold.lease_scheduler(2, (1, 1024, 0, 0), leasehold.scheduler_config.novm_nosr(),
                                  node_choice=refuses)
    s.submit(leasehold.lease_terms(1, 0, duration=100), 0)
    with pytest.raises(ValueError, match="no key for lease 2"):
        s.submit(leasehold.lease_terms(2, 5, duration=50), 5)
    assert s.now == 0
    assert s.state(1) == leasehold.lease_state.running
    with pytest.raises(leasehold.Error):
        s.state(2)
    s.validate()


def test_queue_order_prototype_example(tmp_path):
    # The example end to end on the contended log above: FIFO waits 0, 99, 398 and 447 s
    # (mean 236 s), shortest first 0, 159, 108 and 97 s (mean 91 s).
    import subprocess
    import sys
    from pathlib import Path

    log = tmp_path / "contended.swf"
    log.write_text(
        "; job submit wait run procs cpu mem reqprocs reqtime reqmem status ...\n"
        "1 0 0 100 2 -1 -1 2 100 -1 1 1 1 1 1 1 -1 -1\n"
        "2 1 0 300 2 -1 -1 2 300 -1 1 1 1 1 1 1 -1 -1\n"
        "3 2 0 50 2 -1 -1 2 50 -1 1 1 1 1 1 1 -1 -1\n"
        "4 3 0 10 2 -1 -1 2 10 -1 1 1 1 1 1 1 -1 -1\n"
    )
    script = Path(__file__).resolve().parents[2] / "examples" / "python" / "queue_order_prototype.py"
    done = subprocess.run([sys.executable, str(script), "--trace", str(log), "--nodes", "2"],
                          capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, done.stderr
    rows = {line[:20].strip(): line[20:].split() for line in done.stdout.splitlines()[2:]}
    assert rows["FIFO (Haizea)"][0] == "0.24"
    assert rows["FIFO from Python"][0] == "0.24"
    assert rows["shortest job first"][0] == "0.09"
    missing = subprocess.run([sys.executable, str(script), "--trace", str(tmp_path / "none.swf")],
                             capture_output=True, text=True, timeout=60)
    assert missing.returncode == 1 and "none.swf" in missing.stderr
    bad = subprocess.run([sys.executable, str(script), "--trace", str(log), "--nodes", "-3"],
                         capture_output=True, text=True, timeout=60)
    assert bad.returncode == 2 and "--nodes -3" in bad.stderr
