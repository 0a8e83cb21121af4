ALTER TABLE "text_messages" DROP CONSTRAINT "text_messages_consent_id_text_consents_id_fk";
--> statement-breakpoint
ALTER TABLE "text_messages" ADD CONSTRAINT "text_messages_consent_id_text_consents_id_fk" FOREIGN KEY ("consent_id") REFERENCES "public"."text_consents"("id") ON DELETE no action ON UPDATE no action;