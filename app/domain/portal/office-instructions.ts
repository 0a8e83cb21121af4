/**
 * What the portal tells a tenant about the features the office handles in person
 * (docs/decisions/094): ID upload and unit alarms. Pure.
 */
import type { AccountGlobalSettings } from "../shared/account-settings";

interface OfficeInstruction {
  key: "id_upload" | "unit_alarms";
  heading: string;
  text: string;
}

const ID_UPLOAD_INSTRUCTION: OfficeInstruction = {
  key: "id_upload",
  heading: "Photo ID",
  text: "Bring a photo ID (driver's license or state ID) to the office during office hours and we will add it to your account. We do not take ID uploads online, so your ID never travels by email or web form.",
};

const UNIT_ALARMS_INSTRUCTION: OfficeInstruction = {
  key: "unit_alarms",
  heading: "Unit alarm",
  text: "Your unit can have its own door alarm. Ask the office about unit alarms: we set the alarm code with you in person.",
};

/** The instructions shown for the flags that are on (is_id_upload_enabled, is_unit_alarms_enabled). */
export function officeInstructions(settings: Pick<AccountGlobalSettings, "is_id_upload_enabled" | "is_unit_alarms_enabled">): OfficeInstruction[] {
  return [
    ...(settings.is_id_upload_enabled ? [ID_UPLOAD_INSTRUCTION] : []),
    ...(settings.is_unit_alarms_enabled ? [UNIT_ALARMS_INSTRUCTION] : []),
  ];
}
