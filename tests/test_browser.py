"""The web table in a real headless Chromium (Debian's ``chromium`` and ``chromium-driver``, which
``.ci/run`` installs): a new game, clicked moves, an illegal click, bots moving, a finished game, the
replay stepped back and forth, and a page that never holds another seat's cards.

The server runs in this process on a free loopback port and stops at the end.
"""

from __future__ import annotations

import json
import os
import re
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

pytest.importorskip("starlette")
pytest.importorskip("uvicorn")
pytest.importorskip("selenium.webdriver")

from selenium.common.exceptions import StaleElementReferenceException
from selenium.webdriver.common.action_chains import ActionChains
from selenium.webdriver.common.by import By
from selenium.webdriver.common.keys import Keys
from selenium.webdriver.support.ui import WebDriverWait

from tranquility_env import Game
from tranquility_env.web.app import create_app
from tranquility_env.web.headless import chromium, chromium_found, served

if not chromium_found():
    if os.environ.get("CI"):
        pytest.fail("CI must have Debian's chromium and chromium-driver (.ci/run installs them)", pytrace=False)
    pytest.skip("Debian's chromium and chromium-driver are not installed", allow_module_level=True)


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[str, object]]:
    app = create_app(tmp_path_factory.mktemp("replays"), pace=0.02, seed=11)
    with served(app) as url:
        yield url, app


@pytest.fixture(scope="module")
def browser(tmp_path_factory: pytest.TempPathFactory) -> Iterator[object]:
    with chromium(tmp_path_factory.mktemp("profile")) as driver:
        yield driver


def wait(driver: object, condition, timeout: float = 20) -> object:
    """Until ``condition(driver)`` is true; the page redraws as the game moves, so an element found
    a moment ago may be gone: that counts as not yet."""
    return WebDriverWait(
        driver, timeout, poll_frequency=0.05, ignored_exceptions=[StaleElementReferenceException]
    ).until(lambda d: condition(d))


CLICK_FIRST_MOVE = """const b = document.querySelector('#move-list button');
if (!b) return null;
b.click();
return game.decision;"""


def seat_random_bots(driver: object) -> None:
    """Every bot seat of the new-game form set to random: quick."""
    for select in driver.find_elements(By.CSS_SELECTOR, ".bot-choice"):
        select.find_element(By.CSS_SELECTOR, "option[value='random']").click()


def moved_on(driver: object, decision: int) -> bool:
    """The game went past ``decision``, ended, or the page says why not."""
    if driver.execute_script("return game.decision;") > decision:
        return True
    return driver.find_element(By.ID, "end").is_displayed() or bool(driver.find_element(By.ID, "message").text)


def my_hand(driver: object) -> list[str]:
    return [card.get_attribute("data-card") for card in driver.find_elements(By.CSS_SELECTOR, "#hand .card")]


def page_holds_no_other_cards(driver: object, app: object) -> None:
    """The cards the page holds are the person's only: the hand drawn is the seat's real hand, and
    the page's state (what the server sent) has no other seat's hand, no deck and no seed."""
    (session,) = [g for g in app.state.games.values() if g.human == 0 and g.outcome is None] or [None]
    state = driver.execute_script("return game;")
    if session is None or state is None:
        return
    assert "seed" not in str(state) and "deck'" not in str(state).replace("deck_size", "")
    for seat, player in enumerate(state["view"]["players"]):
        assert seat == 0 or ("hand" not in player and "discard" not in player)
    assert "hand" in state["view"]["players"][0]


def test_a_whole_game_in_the_browser_then_its_replay(server: tuple[str, object], browser: object) -> None:
    url, app = server
    browser.get(url)
    wait(browser, lambda d: d.find_elements(By.CSS_SELECTOR, "#players option"))
    browser.find_element(By.CSS_SELECTOR, "#players option[value='2'], #players option:nth-child(2)").click()
    for select in browser.find_elements(By.CSS_SELECTOR, ".bot-choice"):
        expert = select.find_element(By.CSS_SELECTOR, "option[value='policy+expert']")  # named for people
        assert expert.text == "Learned, looks ahead every move" and "sampled deals" in expert.get_attribute("title")
        select.find_element(By.CSS_SELECTOR, "option[value='random']").click()  # quick
    browser.find_element(By.ID, "start").click()
    wait(browser, lambda d: d.find_element(By.ID, "table").is_displayed() and my_hand(d))
    page_holds_no_other_cards(browser, app)

    # a card, then a slot: the legal targets are highlighted with their cost
    wait(browser, lambda d: d.find_elements(By.CSS_SELECTOR, "#move-list button"))
    plays = [b.get_attribute("data-move") for b in browser.find_elements(By.CSS_SELECTOR, "#move-list button")]
    play = next(m for m in plays if m.startswith("play "))
    _, card, pos = play.split()
    browser.find_element(By.CSS_SELECTOR, f"#hand .card[data-card='{card}']").click()
    targets = [s.get_attribute("data-pos") for s in browser.find_elements(By.CSS_SELECTOR, "#mountain .slot.target")]
    assert pos in targets
    # an illegal click: the same card to a slot it may not take is refused with the rule, game unchanged
    before = browser.execute_script("return game.decision;")
    browser.find_element(By.CSS_SELECTOR, "#mountain .slot[data-pos='r8c1']").click()
    message = wait(browser, lambda d: d.find_element(By.ID, "message").text)
    assert "illegal move" in message and browser.execute_script("return game.decision;") == before
    assert (
        browser.find_element(By.CSS_SELECTOR, f"#hand .card[data-card='{card}']")
        .get_attribute("class")
        .endswith("selected")
    )  # still chosen: now the right slot
    browser.find_element(By.CSS_SELECTOR, f"#mountain .slot[data-pos='{pos}']").click()
    wait(
        browser,
        lambda d: d.find_element(By.CSS_SELECTOR, f"#mountain .slot[data-pos='{pos}']").text.startswith(card[:2]),
    )

    # then the first legal move each turn until the game ends; the bot's moves appear in the log
    for _ in range(400):
        if browser.find_element(By.ID, "end").is_displayed():
            break
        # in the page itself: the list is redrawn whenever the game moves, so no stale element
        decision = browser.execute_script(CLICK_FIRST_MOVE)
        if decision is not None:
            wait(browser, lambda d, n=decision: moved_on(d, n))
            page_holds_no_other_cards(browser, app)
        else:
            time.sleep(0.05)
    assert browser.find_element(By.ID, "end").is_displayed()
    assert browser.find_element(By.ID, "end-title").text in ("The team won!", "The team lost")
    if browser.find_element(By.ID, "end-title").text == "The team lost":  # and why, in a sentence
        assert "had no legal move (E2)" in browser.find_element(By.ID, "end-text").text
    above = "return document.getElementById('end').getBoundingClientRect().bottom"
    above += " <= document.getElementById('mountain').getBoundingClientRect().top;"
    assert browser.execute_script(above)  # the end box sits above the board, covering none of it
    assert ".jsonl" not in browser.find_element(By.ID, "end-text").text
    log = browser.find_elements(By.CSS_SELECTOR, "#log li")
    assert len(log) == browser.execute_script("return game.decision;")  # every move once
    assert log[0].text == f"You played {card} on row {pos[1 : pos.index('c')]}"  # oldest first, in words
    at_bottom = "const l = document.getElementById('log'); return l.scrollTop + l.clientHeight >= l.scrollHeight - 2;"
    assert browser.execute_script(at_bottom)  # the newest line in view, within the log
    assert any(e.text.startswith("Seat 1 (random) ") for e in log)
    words = r"^(You|Seat \d \(\S+\)) (played|discarded|paid|set a|moved|started herding|stopped herding|used a rope)"
    assert all(re.match(words, e.text) for e in log), [e.text for e in log if not re.match(words, e.text)]

    # the replay: step forward and back, from the person's seat, then everyone's (the game is over)
    browser.find_element(By.ID, "watch").click()
    wait(
        browser,
        lambda d: (
            d.find_element(By.ID, "viewer").is_displayed() and "position" in d.find_element(By.ID, "step-label").text
        ),
    )
    total = int(browser.find_element(By.ID, "step-label").text.split()[-1])
    assert total == browser.execute_script("return game.decision;")
    browser.find_element(By.ID, "next").click()
    browser.find_element(By.ID, "next").click()
    assert browser.find_element(By.ID, "step-label").text == f"position 2 of {total}"
    assert browser.find_element(By.ID, "frame-move").text.startswith("Seat ")
    browser.find_element(By.ID, "prev").click()
    assert browser.find_element(By.ID, "step-label").text == f"position 1 of {total}"
    assert browser.find_element(By.ID, "frame-move").text == f"Seat 0: {play}"
    hands = browser.find_elements(By.CSS_SELECTOR, "#frame-seats .hand")
    assert len(hands) == 1  # the person's seat sees its own hand only
    browser.find_element(By.CSS_SELECTOR, "#view-seat option[value='all']").click()
    wait(browser, lambda d: len(d.find_elements(By.CSS_SELECTOR, "#frame-seats .hand")) == 2)
    browser.find_element(By.ID, "last").click()
    assert browser.find_element(By.ID, "step-label").text == f"position {total} of {total}"


def test_a_bad_setup_is_answered_on_the_page(server: tuple[str, object], browser: object) -> None:
    url, _ = server
    browser.get(url)
    wait(browser, lambda d: d.find_elements(By.CSS_SELECTOR, "#players option"))
    browser.find_element(By.ID, "goats").click()  # the shipped learned bots play the base game only
    browser.find_element(By.ID, "start").click()
    error = wait(browser, lambda d: d.find_element(By.ID, "setup-error").text)
    assert "base game" in error and browser.find_element(By.ID, "setup").is_displayed()


def click_move(driver: object, move: str) -> None:
    """Make ``move`` as a person would: by clicking cards, slots and buttons, not the move list.
    Every click redraws the table, so each element is looked up right before its click."""
    verb, *args = move.split()

    def card(name: str, nth: int = 0) -> object:
        return [
            c for c in driver.find_elements(By.CSS_SELECTOR, "#hand .card") if c.get_attribute("data-card") == name
        ][nth]

    def slot(pos: str) -> object:
        return driver.find_element(By.CSS_SELECTOR, f"#mountain .slot[data-pos='{pos}']")

    if verb in ("play", "camp"):
        card(args[0]).click()
        slot(args[1]).click()
    elif verb == "pay":
        card(args[0]).click()
    elif verb in ("move", "step", "herd"):
        slot(args[0]).click()
    elif verb == "discard":
        action_button(driver, "Discard two").click()
        card(args[0]).click()
        card(args[1], nth=1 if args[1] == args[0] else 0).click()
    elif verb in ("rope", "stop"):
        action_button(driver, {"rope": "rope", "stop": "Stop"}[verb]).click()


def action_button(driver: object, text: str) -> object:
    return next(b for b in driver.find_elements(By.CSS_SELECTOR, "#actions button") if text in b.text)


def choose(driver: object, select_id: str, value: str) -> None:
    driver.find_element(By.CSS_SELECTOR, f"#{select_id} option[value='{value}'], #{select_id} option:nth-child(1)")
    for option in driver.find_elements(By.CSS_SELECTOR, f"#{select_id} option"):
        if option.get_attribute("value") == value or option.text == value:
            option.click()
            return
    raise AssertionError(f"no option {value!r} in #{select_id}")


@pytest.mark.parametrize(
    ("players", "panoramas", "green_path"), [(1, "0", False), (3, "2", True)], ids=["solo", "p3-all-modules"]
)
def test_every_kind_of_move_is_made_by_clicking(
    server: tuple[str, object], browser: object, players: int, panoramas: str, green_path: bool
) -> None:
    """With the goats module on: cards and slots, discard pairs, payments, campfire moves, herds,
    steps, stops and ropes, all clicked; every kind that comes up is made without a refusal."""
    import random

    url, _ = server
    browser.get(url)
    wait(browser, lambda d: d.find_elements(By.CSS_SELECTOR, "#players option"))
    choose(browser, "players", str(players))
    seat_random_bots(browser)
    browser.find_element(By.ID, "goats").click()
    choose(browser, "panoramas", panoramas)
    if green_path:
        browser.find_element(By.ID, "green-path").click()
    browser.find_element(By.ID, "start").click()
    wait(browser, lambda d: d.find_element(By.ID, "table").is_displayed())
    rng, made = random.Random(players), set()
    for _ in range(800):
        if browser.find_element(By.ID, "end").is_displayed():
            break
        moves = browser.execute_script("return game.moves.map(m => m.move);")
        if not moves:
            time.sleep(0.02)
            continue
        rare = [m for m in moves if m.split()[0] in ("camp", "move", "herd", "step", "stop", "rope")]
        move = rare[0] if rare and rng.random() < 0.7 else rng.choice(moves)
        decision = browser.execute_script("return game.decision;")
        if move.startswith("pay "):  # the prompt says how many cards are still owed
            owed = browser.execute_script("return game.view.pending.owed;")
            plural = "" if owed == 1 else "s"
            assert f"Pay {owed} more card{plural}" in browser.find_element(By.CSS_SELECTOR, "#actions .owed").text
        click_move(browser, move)
        wait(browser, lambda d, n=decision: moved_on(d, n))
        assert not browser.find_element(By.ID, "message").text, move
        made.add(move.split()[0])
    assert browser.find_element(By.ID, "end").is_displayed()
    assert {"play", "pay", "discard"} <= made, made
    print(sorted(made))


def position_with(verb: str) -> Game:
    """A 3-player goats game where seat 0 may ``verb`` (camp, herd) now, found by seeded play."""
    import random

    for seed in range(3000):
        game, rng = Game.new({"players": 3, "goats": True}, seed), random.Random(seed)
        while not game.is_over:
            legal = game.legal_moves()
            if game.current == 0 and any(m.startswith(f"{verb} ") for m in legal):
                return game
            builders = [m for m in legal if not m.startswith("discard")]
            game.apply(rng.choice(builders if builders and rng.random() < 0.9 else legal))
    raise AssertionError(f"no position with {verb}")


@pytest.mark.parametrize("verb", ["camp", "herd"])
def test_campfires_and_herds_are_clicked_through_their_sub_decisions(
    server: tuple[str, object], browser: object, verb: str
) -> None:
    """A campfire, then its displaced card's move and payments; a herd, its steps, payments and
    stop: all by clicking. The position is set on the server (its replay is not the point here)."""
    url, app = server
    browser.get(url)
    wait(browser, lambda d: d.find_elements(By.CSS_SELECTOR, "#players option"))
    browser.find_element(By.ID, "goats").click()
    seat_random_bots(browser)
    browser.find_element(By.ID, "start").click()
    wait(browser, lambda d: d.execute_script("return game && game.moves.length > 0;"))
    session = app.state.games[browser.execute_script("return game.id;")]
    with session.lock:
        session.game = position_with(verb)
    browser.refresh()  # the address names the game: the page sits at it again, now at that position
    wait(browser, lambda d: d.execute_script(f"return !!game && game.moves.some(m => m.move.startsWith('{verb} '));"))
    made = []
    for _ in range(30):
        moves = browser.execute_script("return game.moves.map(m => m.move);")
        if not moves:
            break
        start = next((m for m in moves if m.startswith(f"{verb} ")), None)
        follow = [m for m in moves if m.split()[0] in ("move", "step", "pay", "stop")]
        move = start if start and not made else (follow[0] if follow else None)
        if move is None:
            break
        decision = browser.execute_script("return game.decision;")
        if move.split()[0] in ("move", "step"):  # the page says what the pending move waits for
            prompt = browser.find_element(By.ID, "actions").text
            assert ("click a lit slot higher up" if verb == "camp" else "Herding the goats") in prompt, prompt
        click_move(browser, move)
        wait(browser, lambda d, n=decision: moved_on(d, n))
        assert not browser.find_element(By.ID, "message").text, move
        made.append(move.split()[0])
    assert made[0] == verb and ({"move"} if verb == "camp" else {"step"}) <= set(made), made


XSS = "<img src=x onerror=\"document.title='XSS'\">"


def test_a_replay_file_with_markup_is_shown_as_text_and_runs_nothing(
    server: tuple[str, object], browser: object, tmp_path: Path
) -> None:
    """A shared replay whose seat name and bot reasoning are HTML: the viewer shows them as text."""
    url, _ = server
    game = Game.new({"players": 2}, 5)
    lines = [json.dumps({"replay": 2, "config": game.config.to_dict(), "seed": 5, "seats": [XSS, "b"], "human": 0})]
    for _ in range(4):
        move = game.legal_moves()[0]
        why = {"kind": "policy", "top": [[XSS, 0.9], [move, 0.1]]}
        lines.append(json.dumps({"seat": game.current, "move": move, "why": why}))
        game.apply(move)
    path = tmp_path / "hostile.jsonl"
    path.write_text("\n".join(lines))
    browser.get(url)
    wait(browser, lambda d: d.find_elements(By.CSS_SELECTOR, "#players option"))
    browser.find_element(By.ID, "tab-replays").click()
    browser.find_element(By.ID, "replay-file").send_keys(str(path))
    wait(browser, lambda d: "position" in d.find_element(By.ID, "step-label").text)
    browser.find_element(By.ID, "next").click()
    wait(browser, lambda d: XSS in d.find_element(By.ID, "frame-why").text)
    assert XSS in browser.find_element(By.ID, "frame-seats").text
    time.sleep(0.3)  # time for an injected onerror to have run
    assert browser.title == "Tranquility: The Ascent"
    assert browser.find_elements(By.CSS_SELECTOR, "img") == []


def leave_every_game(driver: object) -> None:
    """End this browser's games still going (a browser may have only a few at once), as its page would."""
    driver.execute_async_script(
        """const done = arguments[arguments.length - 1];
        api("/api/games").then(async (data) => {
          for (const g of data.games) if (!g.outcome) await api(`/api/games/${g.id}/quit`, {});
        }).then(() => done(), () => done());"""
    )


def start_a_solo_game(driver: object, url: str) -> str:
    """A new solo game from the page's form, once its first moves are shown; its id."""
    driver.get(url)
    wait(driver, lambda d: d.find_elements(By.CSS_SELECTOR, "#players option"))
    leave_every_game(driver)
    choose(driver, "players", "1")
    driver.find_element(By.ID, "start").click()
    wait(driver, lambda d: d.execute_script("return game && game.moves.length > 0;"))
    return driver.execute_script("return game.id;")


def test_a_second_browser_sees_none_of_the_first_ones_games_or_replays(
    server: tuple[str, object], browser: object, tmp_path: Path
) -> None:
    url, _ = server
    game_id = start_a_solo_game(browser, url)
    browser.find_element(By.ID, "leave").click()
    browser.switch_to.alert.dismiss()  # asked first: dismissed, the game goes on
    assert browser.execute_script("return game.outcome;") is None
    browser.find_element(By.ID, "leave").click()
    browser.switch_to.alert.accept()
    replay = wait(browser, lambda d: d.execute_script("return game.outcome && game.replay;"))
    with chromium(tmp_path / "other-profile") as other:
        other.get(f"{url}#{game_id}")  # the first browser's game, by its address
        error = wait(other, lambda d: d.find_element(By.ID, "setup-error").text)
        assert "no such game" in error
        other.find_element(By.ID, "tab-replays").click()
        wait(other, lambda d: d.find_element(By.ID, "replay-page").text)
        assert "No replays yet" in other.find_element(By.ID, "replay-page").text
        assert other.find_elements(By.CSS_SELECTOR, "#replay-list li") == []
    browser.get(url)
    wait(browser, lambda d: d.find_elements(By.CSS_SELECTOR, "#players option"))
    browser.find_element(By.ID, "tab-replays").click()
    wait(browser, lambda d: replay in d.find_element(By.ID, "replay-list").text)


def test_a_game_the_server_no_longer_has_says_so_and_stops_asking(server: tuple[str, object], browser: object) -> None:
    url, app = server
    app.state.games.pop(start_a_solo_game(browser, url)).quit()  # as if left alone too long
    wait(browser, lambda d: d.find_element(By.ID, "end").is_displayed())
    assert browser.find_element(By.ID, "end-title").text == "This game has ended"
    assert "no such game" in browser.find_element(By.ID, "end-text").text
    assert browser.execute_script("return poller === null && game.moves.length === 0;")
    assert browser.find_elements(By.CSS_SELECTOR, "#move-list button") == []


def test_the_form_starts_from_the_servers_table(browser: object, tmp_path: Path) -> None:
    """``tranquility serve --goats --panoramas 2 --set hand_size=4``: the page's first choices,
    and the game it starts, are that table."""
    app = create_app(tmp_path / "replays", table={"players": 2, "goats": True, "panoramas": 2, "hand_size": 4}, pace=0)
    with served(app) as url:
        browser.get(url)
        wait(browser, lambda d: d.find_elements(By.CSS_SELECTOR, "#players option"))
        assert browser.find_element(By.ID, "goats").is_selected()
        assert browser.find_element(By.ID, "panoramas").get_attribute("value") == "2"
        assert not browser.find_element(By.ID, "green-path").is_selected()
        seat_random_bots(browser)
        browser.find_element(By.ID, "start").click()
        wait(browser, lambda d: d.execute_script("return game && game.view.config.goats;"))
        config = browser.execute_script("return game.view.config;")
        assert (config["players"], config["panoramas"], config["hand_size"]) == (2, 2, 4)


def test_the_form_offers_every_config_field_and_a_new_one_with_no_page_change(
    browser: object, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The form is built from ``/api/options``' schema (``Config.schema``): every field has a
    control with its line of help, a field added to the schema appears, and a choice made in the
    form reaches the game."""
    from tranquility_env import Config

    schema = Config.schema()
    extra = {"name": "test_field", "type": "int", "min": 0, "max": 2, "default": 0, "help": "added in a test"}
    monkeypatch.setattr(Config, "schema", classmethod(lambda cls: [*schema, extra]))
    app = create_app(tmp_path / "replays", pace=0)
    with served(app) as url:
        browser.get(url)
        wait(browser, lambda d: d.find_elements(By.CSS_SELECTOR, "#players option"))
        for field in [*schema, extra]:
            if field["name"] != "players":
                control = browser.find_element(By.ID, field["name"].replace("_", "-"))
                label = control.find_element(By.XPATH, "./ancestor::label")
                assert label.get_attribute("title") == field["help"], field["name"]
        monkeypatch.setattr(Config, "schema", classmethod(lambda cls: schema))
        browser.refresh()  # the server's schema without the test's field again
        wait(browser, lambda d: d.find_elements(By.CSS_SELECTOR, "#players option"))
        assert browser.find_element(By.ID, "hand-size").get_attribute("value") == ""  # follows the player count
        choose(browser, "hand-size", "4")
        choose(browser, "bridges", "7")
        browser.find_element(By.ID, "campfire-move-pays").click()  # on by default: now off
        seat_random_bots(browser)
        browser.find_element(By.ID, "start").click()
        wait(browser, lambda d: d.execute_script("return !!game;"))
        config = browser.execute_script("return game.view.config;")
        assert (config["hand_size"], config["bridges"], config["campfire_move_pays"]) == (4, 7, False)
        assert len(browser.find_elements(By.CSS_SELECTOR, "#hand .card")) == 4


def test_leaving_from_the_list_of_games_going_asks_first(server: tuple[str, object], browser: object) -> None:
    url, app = server
    game_id = start_a_solo_game(browser, url)
    browser.get(url)  # back to the form: the game is listed as going
    wait(browser, lambda d: d.find_elements(By.CSS_SELECTOR, "#my-games li"))
    leave = "#my-games li button:nth-of-type(2)"
    browser.find_element(By.CSS_SELECTOR, leave).click()
    browser.switch_to.alert.dismiss()  # asked first: dismissed, the game goes on
    time.sleep(0.2)
    assert app.state.games[game_id].outcome is None and browser.find_elements(By.CSS_SELECTOR, "#my-games li")
    browser.find_element(By.CSS_SELECTOR, leave).click()
    browser.switch_to.alert.accept()
    wait(browser, lambda d: not d.find_elements(By.CSS_SELECTOR, "#my-games li"))
    assert app.state.games[game_id].outcome is not None


def test_every_card_and_slot_says_what_it_is_and_the_marks_have_a_legend(
    server: tuple[str, object], browser: object
) -> None:
    url, _ = server
    start_a_solo_game(browser, url)
    cards = browser.find_elements(By.CSS_SELECTOR, "#hand .card")
    named = r"^(green|blue|red) \d+|^(Bridge|Summit|Guide rope|Campfire)"
    titles = [c.get_attribute("title") for c in cards]
    assert titles and all(re.match(named, t) for t in titles), titles
    slots = browser.find_elements(By.CSS_SELECTOR, "#mountain .slot")
    assert len(slots) == 45 and all(re.match(r"^Row \d, slot \d+: ", s.get_attribute("title")) for s in slots)
    wait(browser, lambda d: d.find_elements(By.CSS_SELECTOR, "#move-list button"))
    moves = [b.get_attribute("data-move") for b in browser.find_elements(By.CSS_SELECTOR, "#move-list button")]
    card = next(m for m in moves if m.startswith("play ")).split()[1]
    browser.find_element(By.CSS_SELECTOR, f"#hand .card[data-card='{card}']").click()  # its slots light up
    lit = wait(browser, lambda d: d.find_elements(By.CSS_SELECTOR, "#mountain .slot.target"))
    lit_titles = [s.get_attribute("title") for s in lit]
    assert all(re.search(r"your move may go here: (free|pays \d+)", t) for t in lit_titles), lit_titles
    legend = browser.find_element(By.ID, "legend")
    legend.find_element(By.TAG_NAME, "summary").click()
    for mark in ("==", "^G", "▲", "🐐", "A lit slot"):
        assert mark in legend.text


def test_the_discards_fold_into_one_line_of_the_move_list(server: tuple[str, object], browser: object) -> None:
    url, _ = server
    start_a_solo_game(browser, url)
    wait(browser, lambda d: d.find_elements(By.CSS_SELECTOR, "#move-list button"))
    pairs = browser.execute_script("return game.moves.filter((m) => m.move.startsWith('discard ')).length;")
    assert pairs > 1  # a solo hand of five: several pairs to discard
    shown = [b.text for b in browser.find_elements(By.CSS_SELECTOR, "#move-list > button")]
    assert shown and not any(t.startswith("discard") for t in shown)  # the list's own lines: no discard
    folded = browser.find_element(By.CSS_SELECTOR, "#move-list details.discards")
    assert folded.find_element(By.TAG_NAME, "summary").text == f"Discard two: {pairs} pairs"
    folded.find_element(By.TAG_NAME, "summary").click()  # one click away, each pair
    buttons = folded.find_elements(By.TAG_NAME, "button")
    assert len(buttons) == pairs and all(b.is_displayed() and b.text.startswith("discard ") for b in buttons)


def test_the_table_fits_a_phone(server: tuple[str, object], tmp_path: Path) -> None:
    """At 390 x 844 the whole mountain, the hand and the moves fit the width: nothing to scroll sideways."""
    url, _ = server
    with chromium(tmp_path / "phone") as phone:
        metrics = {"width": 390, "height": 844, "deviceScaleFactor": 3, "mobile": True}
        phone.execute_cdp_cmd("Emulation.setDeviceMetricsOverride", metrics)  # below a window's least width
        phone.get(url)
        wait(phone, lambda d: d.find_elements(By.CSS_SELECTOR, "#players option"))
        choose(phone, "players", "3")
        seat_random_bots(phone)
        phone.find_element(By.ID, "start").click()
        wait(phone, lambda d: d.find_element(By.ID, "table").is_displayed() and my_hand(d))
        width = phone.execute_script("return document.documentElement.clientWidth;")
        assert width == 390
        assert phone.execute_script("return document.documentElement.scrollWidth;") <= width
        for selector in ("#mountain .slot", "#hand .card", "#move-list > *", "#seats .seat"):
            rights = f"return [...document.querySelectorAll('{selector}')].map((e) => e.getBoundingClientRect().right);"
            right = max(phone.execute_script(rights))
            assert right <= width, (selector, right, width)
        phone.save_screenshot(str(tmp_path / "phone.png"))


def test_a_move_is_made_from_the_keyboard_alone(server: tuple[str, object], browser: object) -> None:
    url, _ = server
    start_a_solo_game(browser, url)
    wait(browser, lambda d: d.find_elements(By.CSS_SELECTOR, "#move-list button"))
    moves = [b.get_attribute("data-move") for b in browser.find_elements(By.CSS_SELECTOR, "#move-list button")]
    _, card, pos = next(m for m in moves if m.startswith("play ")).split()
    decision = browser.execute_script("return game.decision;")
    hand = browser.find_element(By.CSS_SELECTOR, f"#hand .card[data-card='{card}']")
    assert hand.get_attribute("tabindex") == "0" and hand.get_attribute("role") == "button"
    browser.execute_script("arguments[0].focus();", hand)  # as Tab reaches it
    ActionChains(browser).send_keys(Keys.ENTER).perform()
    # the focus moves to the first slot lit for that card, then Tab walks the lit slots
    first = wait(browser, lambda d: d.switch_to.active_element.get_attribute("data-pos"))
    lit = [s.get_attribute("data-pos") for s in browser.find_elements(By.CSS_SELECTOR, "#mountain .slot.target")]
    assert first == lit[0] and pos in lit
    outline = "return getComputedStyle(document.activeElement).outlineStyle;"
    assert browser.execute_script(outline) != "none"  # the focus is visible
    for _ in range(lit.index(pos)):
        ActionChains(browser).send_keys(Keys.TAB).perform()
    assert browser.switch_to.active_element.get_attribute("data-pos") == pos
    ActionChains(browser).send_keys(Keys.SPACE).perform()
    wait(browser, lambda d: d.execute_script("return game.decision;") > decision)
    assert browser.execute_script("return game.view.mountain[arguments[0]];", pos) == card


def test_a_newcomer_finds_how_to_play(server: tuple[str, object], browser: object) -> None:
    url, _ = server
    browser.get(url)
    wait(browser, lambda d: d.find_elements(By.CSS_SELECTOR, "#players option"))
    browser.find_element(By.ID, "how-link").click()  # from the new-game form
    how = browser.find_element(By.ID, "how")
    assert how.is_displayed() and not browser.find_element(By.ID, "setup").is_displayed()
    for words in ("one action", "Where a card may go", "Bridge", "Campfire", "Summit", "Mountain Goats"):
        assert words in how.text
    browser.find_element(By.ID, "tab-play").click()
    assert not how.is_displayed() and browser.find_element(By.ID, "setup").is_displayed()
    browser.find_element(By.ID, "tab-how").click()  # and from the header
    assert how.is_displayed()


def test_the_table_reads_without_colour(server: tuple[str, object], browser: object) -> None:
    """Every card shows its colour as a letter too (G, B, R; ^G for a green campfire), so a person
    who cannot tell the colours apart reads the same table (docs/img/table-grey.png shows it)."""
    url, _ = server
    start_a_solo_game(browser, url)
    play = "const b = document.querySelector('#move-list button[data-move^=\"play \"], #move-list button');"
    play += " b.click(); return game.decision;"
    for _ in range(4):  # a few moves, cards played where they can be, for the mountain as well as the hand
        decision = browser.execute_script(play)
        wait(browser, lambda d, n=decision: moved_on(d, n))
    shown = browser.find_elements(By.CSS_SELECTOR, "#hand .card, #mountain .slot.card")
    texts = [e.text.split("\n")[0] for e in shown]
    on_mountain = browser.find_elements(By.CSS_SELECTOR, "#mountain .slot.card")
    assert on_mountain and all(re.match(r"^([GBR]\d+|==|▲|\^[GBR]|rope)", t) for t in texts), texts


def lost_games() -> dict[str, Game]:
    """Three 2-player games lost three ways, as test_web builds them for ``why_lost``."""
    from tranquility_env.rules import board, cards

    seed, stuck = 0, None
    while stuck is None:  # a game random play loses: a seat had no legal move
        game, seed = Game.new({"players": 2}, seed), seed + 1
        while not game.is_over:
            game.apply(game.legal_moves()[0])
        stuck = game if game.status == "lost" else None
    full, goal = Game.from_dict(stuck.to_dict()), Game.from_dict(stuck.to_dict())
    for game in (full, goal):  # every slot filled, none green: not a position play reaches, but one to judge
        game.mountain[: board.N_SLOTS] = [cards.NAME.index("B5")] * board.N_SLOTS
    goal.config = Game.new({"players": 2, "green_path": True}, 0).config
    return {"had no legal move (E2)": stuck, "no Summit could be played (E1)": full, "goal for the Summit": goal}


def test_the_end_screen_says_why_for_three_kinds_of_loss(server: tuple[str, object], browser: object) -> None:
    url, app = server
    for reason, lost in lost_games().items():
        browser.get(url)
        wait(browser, lambda d: d.find_elements(By.CSS_SELECTOR, "#players option"))
        leave_every_game(browser)
        choose(browser, "players", "2")
        seat_random_bots(browser)
        browser.find_element(By.ID, "start").click()
        wait(browser, lambda d: d.execute_script("return game && game.moves.length > 0;"))
        session = app.state.games[browser.execute_script("return game.id;")]
        with session.lock:  # the game as it ended, set on the server
            session.game, session.outcome = lost, "lost"
        browser.refresh()
        wait(browser, lambda d: d.find_element(By.ID, "end").is_displayed())
        assert browser.find_element(By.ID, "end-title").text == "The team lost"
        assert reason in browser.find_element(By.ID, "end-text").text, browser.find_element(By.ID, "end-text").text
