// Which images the composer takes, and the chip each becomes.

import assert from "node:assert/strict";
import { test } from "node:test";
import { MAX_IMAGE_BYTES, imageAttachment, imageProblem, imagesRefused } from "../images";

test("images up to the cap are taken; bigger ones and other files are refused in words", () => {
  assert.equal(imageProblem("a.png", "image/png", MAX_IMAGE_BYTES), undefined);
  assert.equal(imageProblem("big.jpg", "image/jpeg", 6 * 1024 * 1024), "big.jpg is 6.0 MB; images up to 5.0 MB can be attached.");
  assert.match(imageProblem("notes.pdf", "application/pdf", 10) ?? "", /not an image the model reads/);
  assert.match(imagesRefused("local-coder"), /^local-coder does not take images/);
});

test("an image chip carries the block the server reads", () => {
  const chip = imageAttachment("", "image/png", "AAAA", 3);
  assert.equal(chip.kind, "image");
  assert.match(chip.label, /^pasted image/);
  assert.deepEqual(chip.block, { type: "image", mimeType: "image/png", data: "AAAA" });
});
