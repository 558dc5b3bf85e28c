"""Make docs/serve.png, README's picture of the play page: a 3-player game against two
heuristic bots, a few moves in, with a hint from the heuristic.

    .venv/bin/python docs/screenshot_serve.py            # needs chromium and chromedriver
"""

from __future__ import annotations

import shutil
import socket
import sys
import threading
import time
from pathlib import Path

import uvicorn
from selenium import webdriver
from selenium.webdriver.chrome.service import Service
from selenium.webdriver.common.by import By
from selenium.webdriver.support.ui import Select
from selenium.webdriver.support.ui import WebDriverWait

from sim.web.app import build_app

OUT = Path(__file__).parent / "serve.png"


def main() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    server = uvicorn.Server(uvicorn.Config(build_app("/tmp/portobello-screenshot", 50,
                                                     port=port),
                                           host="127.0.0.1", port=port, log_level="warning"))
    threading.Thread(target=server.run, daemon=True).start()
    while not server.started:
        time.sleep(0.05)
    options = webdriver.ChromeOptions()
    options.binary_location = shutil.which("chromium") or ""
    for flag in ("--headless=new", "--no-sandbox", "--disable-gpu", "--window-size=1400,1000",
                 "--disable-background-networking", "--disable-component-update"):
        options.add_argument(flag)
    driver = webdriver.Chrome(service=Service(shutil.which("chromedriver")), options=options)
    try:
        driver.get(f"http://127.0.0.1:{port}/")
        Select(driver.find_element(By.ID, "f-players")).select_by_visible_text("3")
        driver.find_element(By.ID, "f-seed").clear()
        driver.find_element(By.ID, "f-seed").send_keys("7")
        driver.find_element(By.ID, "start").click()
        wait = WebDriverWait(driver, 30, poll_frequency=0.05)
        body = driver.find_element(By.TAG_NAME, "body")
        for selector in ('#board [data-kind="district"][data-legal="1"]', "#tokens button",
                         '#board [data-kind="spot"][data-legal="1"]'):
            wait.until(lambda d: body.get_attribute("data-human-to-move") == "1")
            before = body.get_attribute("data-actions")
            driver.find_elements(By.CSS_SELECTOR, selector)[0].click()
            wait.until(lambda d, b=before: body.get_attribute("data-actions") != b)
        driver.find_element(By.ID, "hint").click()
        wait.until(lambda d: "would:" in d.find_element(By.ID, "hint-box").text)
        driver.save_screenshot(str(OUT))
    finally:
        driver.quit()
        server.should_exit = True
    print(OUT)
    return 0


if __name__ == "__main__":
    sys.exit(main())
