import { describe, expect, it } from "vitest";
import * as operator from "../../seeds/operator";
import { checkSeedRecord, SeedRecordError } from "../../seeds/validate";

/**
 * The seed checks the operator's records through the registry's schemas before inserting them
 * (issue 24): a record that fails stops the seed, naming the record, the field and the rule.
 */
describe("checkSeedRecord", () => {
  it("passes the operator's own records", () => {
    for (const loc of operator.locations) {
      checkSeedRecord("address", loc.address, loc.name);
      for (const item of [...loc.gateHours, ...loc.officeHours]) checkSeedRecord("hoursItem", { ...item, isOpen24Hours: item.isOpen24Hours ?? false, isClosed: item.isClosed ?? false }, loc.name);
    }
    for (const [title, content] of operator.faqs) checkSeedRecord("contentItem", { title, content, tag: "FAQ", index: 0 }, title);
    checkSeedRecord("page", operator.portableStoragePage, "portable storage");
    checkSeedRecord("account", operator.account, "account");
  });

  it.each([
    ["hoursItem", { days: "Sa", open: "14:00", close: "09:00", isClosed: false, isOpen24Hours: false }, "close", "The closing time must be after the opening time (14:00)."],
    ["hoursItem", { days: "Saturday", open: "09:00", close: "14:00" }, "days", "Choose at least one day."],
    ["location", { name: "Lumberton", facebook: "facebook.com/x" }, "facebook", "Enter a web address starting with https://."],
    ["contentItem", { title: " ", content: "x", tag: "FAQ" }, "title", "Enter a value."],
    ["address", { street1: "1 Main St", postal: "2835" }, "postal", "Enter a ZIP code such as 28358."],
  ] as const)("refuses a bad %s, naming the field and the rule", (entity, record, field, message) => {
    expect(() => checkSeedRecord(entity, record, "the record")).toThrow(SeedRecordError);
    expect(() => checkSeedRecord(entity, record, "the record")).toThrow(new RegExp(`“the record”, field ${field} \\(.*\\): ${message.replace(/[.*+?^${}()|[\]\\]/g, "\\$&")}$`));
  });

  it("does not check columns the registry does not list, nor images and references", () => {
    expect(checkSeedRecord("unitType", { standardRate: -5, images: ["not an image"], locationId: "x" }, "t")).toEqual({ standardRate: -5, images: ["not an image"], locationId: "x" });
  });
});
