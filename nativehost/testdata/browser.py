"""Drives Chromium with Braid's extension for browser_test.go.

browser.py CHROMIUM CHROMEDRIVER EXTENSION_DIR USER_DATA_DIR SITE EXTENSION_ID DOWNLOADS [RPC_URL RPC_SECRET]

With RPC_URL, the options page is first set to use that aria2 JSON-RPC
(for a browser where the native host is not registered), and the capture
is not tried.

Logs in on SITE (a cookie), reads the link on its page, opens the
extension's popup, adds the link there and waits until the popup lists
the download. Then turns the capture on in the options (types "bin", any
size), clicks a download link on the page (Braid takes it), clicks
another with Alt held (the browser keeps it, into DOWNLOADS) and one of
another type (the browser keeps it). Prints one JSON object:
{"loaded": how the extension was loaded, "link", "status", "rows",
"captured_rows", "rows_at" and "captured_at": when each list of rows was
read, in Unix seconds}. The popup lists only downloads that are not done:
on a slow machine one may end before a read.
"""
import json
import sys
import time

from selenium import webdriver
from selenium.webdriver.chrome.service import Service
from selenium.webdriver.common.action_chains import ActionChains
from selenium.webdriver.common.by import By
from selenium.webdriver.common.keys import Keys
from selenium.webdriver.support.ui import WebDriverWait


def row_texts(driver):
    """The popup's download rows' texts, read in one step in the page: the
    popup redraws its list as it polls, so an element found a moment
    before may be gone when its text is asked."""
    return driver.execute_script(
        "return Array.from(document.querySelectorAll('li.download'), r => r.innerText);")


chromium, chromedriver, ext, user_data, site, ext_id, downloads = sys.argv[1:8]
rpc_url, rpc_secret = (sys.argv[8:10] + ["", ""])[:2]

opts = webdriver.ChromeOptions()
opts.binary_location = chromium
for a in ["--headless=new", "--no-sandbox", "--disable-gpu", "--no-first-run",
          "--disable-background-networking", "--disable-component-update", "--disable-sync",
          "--user-data-dir=" + user_data, "--load-extension=" + ext,
          "--disable-extensions-except=" + ext, "--enable-unsafe-extension-debugging"]:
    opts.add_argument(a)
# chromedriver adds --disable-extensions by default; the extension must load.
opts.add_experimental_option("excludeSwitches", ["disable-extensions"])
opts.add_experimental_option("prefs", {"download.default_directory": downloads,
                                       "download.prompt_for_download": False})
driver = webdriver.Chrome(service=Service(chromedriver), options=opts)
out = {"loaded": "--load-extension"}
try:
    popup = "chrome-extension://%s/popup.html" % ext_id
    driver.get(popup)
    if not driver.find_elements(By.ID, "url"):
        # This Chromium refused --load-extension: load it over the DevTools
        # protocol instead.
        res = driver.execute_cdp_cmd("Extensions.loadUnpacked", {"path": ext})
        out["loaded"] = "Extensions.loadUnpacked " + json.dumps(res)
        time.sleep(1)
        driver.get(popup)

    wait = WebDriverWait(driver, 30)
    if rpc_url:
        driver.get("chrome-extension://%s/options.html" % ext_id)
        wait.until(lambda d: d.find_element(By.ID, "minSizeMB").get_attribute("value") != "")
        driver.find_element(By.ID, "rpcURL").send_keys(rpc_url)
        driver.find_element(By.ID, "rpcSecret").send_keys(rpc_secret)
        driver.find_element(By.ID, "test").click()
        wait.until(lambda d: "answers" in d.find_element(By.ID, "status").text or "Remote control:" in d.find_element(By.ID, "status").text)
        out["test"] = driver.find_element(By.ID, "status").text

    driver.get(site + "/login")  # sets the session cookie, then shows the page
    # Through the RPC, a link that needs no login: Braid's RPC keeps no cookies.
    link = driver.find_element(By.ID, "open" if rpc_url else "file").get_attribute("href")
    out["link"] = link

    driver.get(popup)
    driver.find_element(By.ID, "url").send_keys(link)
    driver.find_element(By.ID, "go").click()
    wait.until(lambda d: d.find_element(By.ID, "status").text not in ("", "Adding…"))
    out["status"] = driver.find_element(By.ID, "status").text
    try:
        wait.until(lambda d: d.find_elements(By.CSS_SELECTOR, "li.download"))
    except Exception:
        pass
    out["rows"] = row_texts(driver)
    out["rows_at"] = time.time()

    if rpc_url:
        print(json.dumps(out))
        sys.exit(0)

    # The capture, through the options page as a user sets it.
    driver.get("chrome-extension://%s/options.html" % ext_id)
    wait.until(lambda d: d.find_element(By.ID, "minSizeMB").get_attribute("value") != "")
    driver.find_element(By.ID, "capture").click()
    for field, value in (("minSizeMB", "0"), ("types", "bin")):
        el = driver.find_element(By.ID, field)
        el.clear()
        el.send_keys(value)
    driver.find_element(By.ID, "save").click()
    wait.until(lambda d: d.find_element(By.ID, "status").text == "Saved.")

    # A fresh page for each click: Chromium holds back a page's second
    # download until the user allows several.
    driver.get(site + "/page")
    driver.find_element(By.ID, "capture").click()
    time.sleep(1)
    driver.get(site + "/page")
    ActionChains(driver).key_down(Keys.ALT).click(driver.find_element(By.ID, "bypass")).key_up(Keys.ALT).perform()
    time.sleep(1)
    driver.get(site + "/page")
    driver.find_element(By.ID, "othertype").click()
    time.sleep(1)

    driver.get(popup)
    try:
        wait.until(lambda d: len(d.find_elements(By.CSS_SELECTOR, "li.download")) >= 2)
    except Exception:
        pass
    time.sleep(2)  # any wrong capture of the other two would show by now
    driver.get(popup)
    try:
        wait.until(lambda d: d.find_elements(By.CSS_SELECTOR, "li.download"))
    except Exception:
        pass
    out["captured_rows"] = row_texts(driver)
    out["captured_at"] = time.time()
finally:
    driver.quit()
if not rpc_url:
    print(json.dumps(out))
