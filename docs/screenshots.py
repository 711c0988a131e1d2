"""Make the screenshots of docs/play.md: ``make screenshots`` (needs Debian's chromium and
chromium-driver, and the dev and web extras).

A 3-player game with the shipped learned bots on a fixed deal, played by always taking the first
legal move, photographed after a dozen of the person's moves with a card chosen, and at its end;
the same without colour (grayscale); then its replay, seen by everyone, halfway through; and a game
on a phone-sized screen (390 x 844).
"""

from __future__ import annotations

import tempfile
import time
from pathlib import Path

from selenium.webdriver.common.by import By
from selenium.webdriver.support.ui import WebDriverWait

from tranquility_env.web.app import create_app
from tranquility_env.web.headless import chromium, served

OUT = Path(__file__).parent / "img"
FIRST_MOVE = "const b = document.querySelector('#move-list button'); if (b) b.click();"  # a folded one too


def main() -> None:
    OUT.mkdir(exist_ok=True)
    with tempfile.TemporaryDirectory() as scratch:
        app = create_app(Path(scratch) / "replays", pace=0, seed=3)
        with served(app) as url, chromium(Path(scratch) / "profile", size=(1280, 1000)) as driver:
            wait = WebDriverWait(driver, 60, poll_frequency=0.05)
            driver.get(url)
            wait.until(lambda d: d.find_elements(By.CSS_SELECTOR, "#players option"))
            driver.find_element(By.ID, "start").click()
            for _ in range(12):
                wait.until(lambda d: d.find_elements(By.CSS_SELECTOR, "#move-list button"))
                decision = driver.execute_script("return game.decision;")
                driver.execute_script(FIRST_MOVE)
                wait.until(lambda d, n=decision: d.execute_script("return game.decision;") > n)
            wait.until(lambda d: d.find_elements(By.CSS_SELECTOR, "#move-list button"))
            card = driver.find_element(By.CSS_SELECTOR, "#move-list button").get_attribute("data-move").split()[1]
            driver.find_element(By.CSS_SELECTOR, f"#hand .card[data-card='{card}']").click()
            time.sleep(0.3)
            driver.save_screenshot(str(OUT / "table.png"))
            driver.execute_script("document.documentElement.style.filter = 'grayscale(1)';")  # no colour at all
            time.sleep(0.2)
            driver.save_screenshot(str(OUT / "table-grey.png"))
            driver.execute_script("document.documentElement.style.filter = '';")
            while not driver.find_element(By.ID, "end").is_displayed():
                driver.execute_script(FIRST_MOVE)
                time.sleep(0.05)
            driver.execute_script("window.scrollTo(0, 0);")
            time.sleep(0.3)
            driver.save_screenshot(str(OUT / "end.png"))  # the end box above the board
            driver.find_element(By.ID, "watch").click()
            wait.until(lambda d: "position" in d.find_element(By.ID, "step-label").text)
            driver.find_element(By.CSS_SELECTOR, "#view-seat option[value='all']").click()
            wait.until(lambda d: len(d.find_elements(By.CSS_SELECTOR, "#frame-seats .hand")) == 3)
            total = int(driver.find_element(By.ID, "step-label").text.split()[-1])
            while int(driver.find_element(By.ID, "step-label").text.split()[1]) < total * 2 // 3:
                driver.find_element(By.ID, "next").click()
            while not driver.find_element(By.ID, "frame-why").text:  # a bot's move, with what it weighed
                driver.find_element(By.ID, "next").click()
            driver.save_screenshot(str(OUT / "replay.png"))
        with served(app) as url, chromium(Path(scratch) / "phone") as phone:
            metrics = {"width": 390, "height": 844, "deviceScaleFactor": 2, "mobile": True}
            phone.execute_cdp_cmd("Emulation.setDeviceMetricsOverride", metrics)
            phone.get(url)
            WebDriverWait(phone, 60).until(lambda d: d.find_elements(By.CSS_SELECTOR, "#players option"))
            phone.find_element(By.ID, "start").click()
            WebDriverWait(phone, 60).until(lambda d: d.find_elements(By.CSS_SELECTOR, "#move-list button"))
            time.sleep(0.3)
            phone.save_screenshot(str(OUT / "phone.png"))
    names = ("table.png", "table-grey.png", "end.png", "replay.png", "phone.png")
    print(f"written: {', '.join(str(OUT / name) for name in names)}")


if __name__ == "__main__":
    main()
